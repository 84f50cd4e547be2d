"""RMS contrast of each image of a batch (flattened to a row of N pixels): the population standard deviation of
its intensities, sqrt(mean_j (x_j - mean)^2).

Two passes over each row, BLOCK_N pixels at a time, fp32 per-lane accumulators: the mean (and max |x|) first,
then the sum of squared deviations from the mean. The deviations are divided by the row's max |x| before
squaring (and the result multiplied back), so tiny and huge intensities neither underflow nor overflow. Any
strides; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def rms_contrast_kernel(x_ptr, out_ptr, M, N, sxm, sxn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * sxm
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    amax = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
        acc += x
        amax = tl.maximum(amax, tl.abs(x))
    mean = tl.sum(acc, axis=1) / N
    scale = tl.max(amax, axis=1)
    scale = tl.where((scale > 0.0) & (scale < float("inf")), scale, 1.0)
    acc2 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x / scale[:, None], 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=1) / N - (mean / scale) * (mean / scale)
    tl.store(out_ptr + rows, (tl.sqrt(var) * scale).to(out_ptr.dtype.element_ty), mask=row_mask)


def rms_contrast(x: torch.Tensor, BLOCK_N: int = 512, BLOCK_M: int = 4) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    rms_contrast_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=BLOCK_M,
                                                    BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.std(dim=-1, correction=0)


BUG_CLASS = "cancellation"

spec = kcheck.Spec(
    name="hx23_rms_contrast",
    kernel=rms_contrast,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="images")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=1024, min=1, real=(37, 2880))},
    reduce=["N"],
    configs=[{"BLOCK_N": 512, "BLOCK_M": 4}, {"BLOCK_N": 128, "BLOCK_M": 8}],
)

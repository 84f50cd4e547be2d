"""Mean absolute successive difference per row (von Neumann's MSSD companion, a roughness measure of a time
series in econometrics and neuroscience): out[m] = sum_{j < N-1} |x[m, j+1] - x[m, j]| / (N - 1), 0 for N < 2.

BLOCK_M rows per program, the row walked in BLOCK_N-wide chunks, fp32 accumulation, any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def mean_successive_diff_kernel(x_ptr, out_ptr, M, N, s_xm, s_xn,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * s_xm
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols[None, :] < N)
        a = tl.load(x_row + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(x_row + (cols[None, :] + 1) * s_xn, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, tl.abs(b - a), 0.0)
    total = tl.sum(acc, axis=1)
    denom = tl.maximum(N - 1, 1).to(tl.float32)
    tl.store(out_ptr + rows, (total / denom).to(out_ptr.dtype.element_ty), mask=row_mask)


def mean_successive_diff(x, BLOCK_M=4, BLOCK_N=128):
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    mean_successive_diff_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), x.stride(1),
                                                             BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x):
    N = x.shape[-1]
    d = (x[:, 1:] - x[:, :-1]).abs().sum(-1)
    return d / max(N - 1, 1)


spec = kcheck.Spec(
    name="mean_successive_diff",
    kernel=mean_successive_diff,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=500)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 128}, {"BLOCK_M": 2, "BLOCK_N": 64}],
)

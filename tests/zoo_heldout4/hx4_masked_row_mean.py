"""Length-masked mean over each row: out[m] = mean(x[m, :lengths[m]]), 0 for an empty row. Padded sequences
pooled to one vector per row; one program per block of rows, fp32 accumulation over BLOCK_N chunks."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def masked_mean_kernel(x_ptr, len_ptr, out_ptr, M, N, stride_m, stride_n,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    length = tl.load(len_ptr + rows, mask=row_mask, other=0)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        valid = row_mask[:, None] & (cols[None, :] <= length[:, None]) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=valid, other=0.0)
        acc += x.to(tl.float32)
    total = tl.sum(acc, axis=1)
    mean = total / tl.maximum(length, 1).to(tl.float32)
    tl.store(out_ptr + rows, mean.to(out_ptr.dtype.element_ty), mask=row_mask)


def masked_mean(x, lengths, BLOCK_N=256):
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M)))
    masked_mean_kernel[(triton.cdiv(M, block_m),)](x, lengths, out, M, N, x.stride(0), x.stride(1),
                                                   BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x, lengths):
    cols = torch.arange(x.shape[1], device=x.device)
    keep = cols[None, :] < lengths[:, None]
    total = torch.where(keep, x, torch.zeros((), dtype=x.dtype, device=x.device)).sum(-1)
    return total / lengths.clamp(min=1).to(x.dtype)


spec = kcheck.Spec(
    name="hx4_masked_row_mean",
    kernel=masked_mean,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Index("M", high="N", name="lengths")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

BUG_CLASS = "off-by-one-mask"

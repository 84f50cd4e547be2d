"""Column sums of a tall activation matrix: out[n] = sum_m x[m, n] (the bias gradient of a linear layer).

The rows are taken in slabs of SLAB rows, one launch per slab in order, so that each program's serial loop stays
short and the slabs add up in a fixed order (deterministic, no atomics). Within a launch each program owns BLOCK_N
columns and loops over its slab BLOCK_M rows at a time with an fp32 accumulator; a launch after the first adds its
slab's sums to what the earlier ones left in the fp32 output. Output fp32 whatever the input dtype; int64 offsets;
any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def column_sum_kernel(x_ptr, out_ptr, row_lo, row_hi, N, stride_xm, stride_xn,
                      ACCUMULATE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(row_lo, row_hi, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        mask = (rows < row_hi)[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
        acc += x.to(tl.float32)
    total = tl.sum(acc, axis=0)
    if ACCUMULATE:
        total += tl.load(out_ptr + cols, mask=col_mask, other=0.0)
    tl.store(out_ptr + cols, total, mask=col_mask)


def column_sum(x: torch.Tensor, SLAB: int = 128, BLOCK_M: int = 32, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(N, dtype=torch.float32, device=x.device)
    if N == 0:
        return out
    if M == 0:
        return out.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    grid = (triton.cdiv(N, block_n),)
    for row_lo in range(0, M, SLAB):
        column_sum_kernel[grid](x, out, row_lo, min(row_lo + SLAB, M), N, x.stride(0), x.stride(1),
                                ACCUMULATE=M > SLAB, BLOCK_M=BLOCK_M, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx5_column_sum",
    kernel=column_sum,
    reference=lambda x: x.sum(dim=0),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    reduce=["M"],
    output_dtypes=[torch.float32],
    configs=[{"SLAB": 128}, {"SLAB": 1024, "BLOCK_M": 64, "BLOCK_N": 64}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "uninitialized-accumulator"

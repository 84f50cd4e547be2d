"""Bug class: missing tail mask on a load.

Row sums whose load masks the rows but not the columns: every chunk reads BLOCK_N columns, so when N is not a
multiple of the chunk width the sum takes in BLOCK_N - N % BLOCK_N elements past the row's end (the next row, the
padding of a strided row, or memory past the tensor). A power-of-two N (1024 with BLOCK_N = 1024) is right.
The mask is missing on a load, never on a store: an unmasked store past the end corrupts memory or crashes.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = x_ptr + rows[:, None] * stride_m
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        # BUG: the columns are not masked (should be row_mask[:, None] & (cols < N)[None, :])
        x = tl.load(row_ptr + cols[None, :].to(tl.int64) * stride_n, mask=row_mask[:, None], other=0.0)
        acc += x.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=row_mask)


def row_sum(x: torch.Tensor, BLOCK_N: int = 1024, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    row_sum_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1),
                                              BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="missing_tail_mask",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
)

BUG_CLASS = "edge-guard"

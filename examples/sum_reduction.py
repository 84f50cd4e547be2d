"""Row sums: out[m] = sum_n x[m, n]. A tiled reduction that loops over N in BLOCK_N chunks, accumulates in fp32
and returns the input dtype; several rows per program when rows are short, int64 row offsets (M*N may pass 2**31).
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = x_ptr + rows[:, None] * stride_m
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(row_ptr + cols[None, :].to(tl.int64) * stride_n, mask=mask, other=0.0)
        acc += x.to(tl.float32)
    total = tl.sum(acc, axis=1)
    tl.store(out_ptr + rows, total.to(out_ptr.dtype.element_ty), mask=row_mask)


def _blocks(M: int, N: int, BLOCK_N: int, TILE: int) -> tuple[int, int]:
    """Chunk width (never wider than the row) and rows per program so that a tile holds about TILE elements."""
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    return block_m, block_n


def row_sum(x: torch.Tensor, BLOCK_N: int = 1024, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_m, block_n = _blocks(M, N, BLOCK_N, TILE)
    row_sum_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1),
                                              BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="sum_reduction",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
    properties=[kcheck.props.linear(0)],
)

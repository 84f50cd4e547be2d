"""Bias gradient of a linear layer: db[n] = sum_m dy[m, n].

A persistent kernel: PROGRAMS programs (about one per SM) stride over the BLOCK_N-wide column tiles; for each tile
a program walks the rows in BLOCK_M chunks, accumulates in fp32 and stores the column sums in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"
GPU_ONLY = False


@triton.jit
def _bias_grad_kernel(dy_ptr, db_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    num_programs = tl.num_programs(0)
    num_tiles = tl.cdiv(N, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for tile in range(pid, num_tiles, num_programs):
        rn = tile * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = rn < N
        for start in range(0, M, BLOCK_M):
            rm = start + tl.arange(0, BLOCK_M).to(tl.int64)
            mask = (rm[:, None] < M) & col_mask[None, :]
            acc += tl.load(dy_ptr + rm[:, None] * stride_m + rn[None, :] * stride_n, mask=mask, other=0.0).to(
                tl.float32)
        tl.store(db_ptr + rn, tl.sum(acc, axis=0).to(db_ptr.dtype.element_ty), mask=col_mask)


def bias_grad(dy: torch.Tensor, BLOCK_M: int = 32, BLOCK_N: int = 64, PROGRAMS: int = 132) -> torch.Tensor:
    M, N = dy.shape
    db = torch.empty(N, dtype=dy.dtype, device=dy.device)
    if N == 0:
        return db
    if M == 0:
        return db.zero_()
    grid = (min(triton.cdiv(N, BLOCK_N), PROGRAMS),)
    _bias_grad_kernel[grid](dy, db, M, N, dy.stride(0), dy.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return db


spec = kcheck.Spec(
    name="ho_bias_grad",
    kernel=bias_grad,
    reference=lambda dy: dy.sum(0),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=256, real=(2880,)), "N": kcheck.Dim(nominal=128, real=(768,))},
    reduce=["M"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64, "PROGRAMS": 132}, {"BLOCK_M": 64, "BLOCK_N": 32, "PROGRAMS": 2}],
)

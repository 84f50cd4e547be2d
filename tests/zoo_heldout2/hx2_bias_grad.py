"""Bias gradient of a linear layer: db[n] = sum_m dy[m, n], fp32 accumulation over row chunks.

The kernel adds the column sums into db, so a caller can accumulate micro-batches into one fp32 buffer; one program
per block of columns walks all rows.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bias_grad_accum_kernel(dy_ptr, db_ptr, M, N, stride_m, stride_n,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    acc = tl.load(db_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        mask = (rows < M)[:, None] & col_mask[None, :]
        dy = tl.load(dy_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
        acc += tl.sum(dy.to(tl.float32), axis=0)
    tl.store(db_ptr + cols, acc.to(db_ptr.dtype.element_ty), mask=col_mask)


def bias_grad(dy, db=None, BLOCK_M=32, BLOCK_N=64):
    M, N = dy.shape
    if db is None:
        db = torch.empty(N, dtype=torch.float32, device=dy.device)
    if N:
        bias_grad_accum_kernel[(triton.cdiv(N, BLOCK_N),)](dy, db, M, N, dy.stride(0), dy.stride(1),
                                                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return db


spec = kcheck.Spec(
    name="hx2_bias_grad",
    kernel=bias_grad,
    reference=lambda dy: dy.sum(0),
    inputs=[kcheck.Tensor("M", "N")],
    output_dtypes=[torch.float32],
    dims={"M": kcheck.Dim(nominal=256, real=()), "N": kcheck.Dim(nominal=96)},
    reduce=["M"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 128, "BLOCK_N": 16}],
)

BUG_CLASS = "uninitialized-accumulator"

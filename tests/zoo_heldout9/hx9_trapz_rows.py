"""Trapezoidal integral of each row of uniformly sampled signals (torch.trapezoid with spacing dx): the sum of the
row minus half its two end points, times dx. Several rows per program, a loop over BLOCK_N-wide chunks that folds
each chunk into a running row total; fp16/bf16 rows are read as stored."""

import torch
import triton
import triton.language as tl

import kcheck

DX = 0.01


@triton.jit
def trapz_kernel(x_ptr, out_ptr, M, N, stride_xm, dx,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < M
    x_rows = x_ptr + rows[:, None] * stride_xm
    total = tl.zeros([BLOCK_M], dtype=x_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_rows + cols[None, :], mask=row_ok[:, None] & (cols < N)[None, :], other=0.0)
        total += tl.sum(x, axis=1)
    first = tl.load(x_ptr + rows * stride_xm, mask=row_ok, other=0.0).to(tl.float32)
    last = tl.load(x_ptr + rows * stride_xm + (N - 1), mask=row_ok, other=0.0).to(tl.float32)
    y = (total - 0.5 * (first + last)) * dx
    tl.store(out_ptr + rows, y.to(out_ptr.dtype.element_ty), mask=row_ok)


def trapz_rows(x: torch.Tensor, BLOCK_M: int = 4, BLOCK_N: int = 32) -> torch.Tensor:
    M, N = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    trapz_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), DX, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx9_trapz_rows",
    kernel=trapz_rows,
    reference=lambda x: torch.trapezoid(x, dx=DX, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=8192)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 32}, {"BLOCK_M": 2, "BLOCK_N": 16}],
)

BUG_CLASS = 'low-precision-accumulation'  # the planted class (from the README's table), for benchmarks/zoo.py

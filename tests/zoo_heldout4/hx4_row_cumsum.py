"""Inclusive prefix sum along each row: out[m, n] = sum_{j <= n} x[m, j]. One program per row walks the row in
BLOCK_N chunks: tl.cumsum inside a chunk in fp32, plus a running fp32 carry of the chunks before it."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_cumsum_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    carry = tl.zeros([1], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        y = tl.cumsum(x, axis=0) + carry
        tl.store(o_row + cols, y.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def row_cumsum(x, BLOCK_N=1024):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    row_cumsum_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx4_row_cumsum",
    kernel=row_cumsum,
    reference=lambda x: torch.cumsum(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=256, real=(37, 2880))},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = None

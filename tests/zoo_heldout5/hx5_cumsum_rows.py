"""Inclusive prefix sum along the last dimension: out[m, n] = sum_{j <= n} x[m, j].

One program per row; the row is scanned BLOCK_N elements at a time with tl.cumsum, and the running total of the
chunks already done is carried in fp32 and added to each chunk's local scan. Output in the input dtype; int64 row
offsets; any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cumsum_rows_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om, stride_on, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    carry = tl.zeros([1], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        local = tl.cumsum(x, axis=0)
        tl.store(o_row + cols * stride_on, (local + carry).to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum_rows(x: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    cumsum_rows_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=1)


spec = kcheck.Spec(
    name="hx5_cumsum_rows",
    kernel=cumsum_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = None

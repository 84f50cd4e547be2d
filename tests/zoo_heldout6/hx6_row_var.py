"""Unbiased variance of each row, torch.var(x, dim=-1) (correction 1), in two passes: the row mean, then the sum
of squared deviations from it, both accumulated in fp32 over BLOCK_N-wide chunks. One program per row; strides
honoured; the result is returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_var_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols <= N
        acc += tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols <= N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / (N - 1)
    tl.store(out_ptr + row, var.to(out_ptr.dtype.element_ty))


def row_var(x: torch.Tensor, MAX_BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    block = min(triton.next_power_of_2(N), MAX_BLOCK)
    row_var_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=block)
    return out


spec = kcheck.Spec(
    name="hx6_row_var",
    kernel=row_var,
    reference=lambda x: torch.var(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"MAX_BLOCK": 1024}, {"MAX_BLOCK": 256}],
    properties=[kcheck.props.shift_invariant(0)],
)

BUG_CLASS = "off-by-one-mask"

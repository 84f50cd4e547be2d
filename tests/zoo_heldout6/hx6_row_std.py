"""Unbiased standard deviation of each row, torch.std(x, dim=-1), in a single read of the row: fp32 sums of x and
x^2 over BLOCK_N-wide chunks give var = (sum x^2 - (sum x)^2 / N) / (N - 1), clamped at 0 against rounding, and
std = sqrt(var). One program per row, strides honoured, returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_std_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    s1 = tl.zeros([BLOCK_N], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        s1 += x
        s2 += x * x
    t1 = tl.sum(s1, axis=0)
    t2 = tl.sum(s2, axis=0)
    var = (t2 - t1 * t1 / N) / (N - 1)
    var = tl.where(var < 0, 0.0, var)
    tl.store(out_ptr + row, tl.sqrt(var).to(out_ptr.dtype.element_ty))


def row_std(x: torch.Tensor, MAX_BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    block = min(triton.next_power_of_2(N), MAX_BLOCK)
    row_std_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=block)
    return out


spec = kcheck.Spec(
    name="hx6_row_std",
    kernel=row_std,
    reference=lambda x: torch.std(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"MAX_BLOCK": 1024}, {"MAX_BLOCK": 256}],
)

BUG_CLASS = "cancellation"

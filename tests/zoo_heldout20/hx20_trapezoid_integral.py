"""Row-wise trapezoidal integration of uniformly sampled signals with spacing dx:

    out[r] = dx * (sum_j y[r, j] - (y[r, 0] + y[r, N - 1]) / 2)

One program per row, a loop over BLOCK_N chunks with an fp32 running sum, int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

DX = 0.01


@triton.jit
def trapezoid_kernel(y_ptr, out_ptr, N, stride_m, stride_n, dx, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = y_ptr + row * stride_m
    acc = tl.zeros([BLOCK_N], dtype=y_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        y = tl.load(base + cols.to(tl.int64) * stride_n, mask=mask, other=0.0)
        w = tl.where((cols == 0) | (cols == N - 1), 0.5, 1.0)
        acc += (y * w).to(y.dtype)
    total = tl.sum(acc, axis=0).to(tl.float32)
    tl.store(out_ptr + row, (total * dx).to(out_ptr.dtype.element_ty))


def trapezoid_integral(y: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = y.shape
    out = torch.empty(M, dtype=y.dtype, device=y.device)
    if M == 0:
        return out
    if N < 2:
        return out.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    trapezoid_kernel[(M,)](y, out, N, y.stride(0), y.stride(1), DX, BLOCK_N=block_n)
    return out


def reference(y: torch.Tensor) -> torch.Tensor:
    if y.shape[-1] < 2:
        return y.new_zeros(y.shape[:-1])
    return ((y[:, 1:] + y[:, :-1]) * 0.5).sum(-1) * DX


spec = kcheck.Spec(
    name="trapezoid_integral",
    kernel=trapezoid_integral,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=8192, real=())},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 32}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = "low-precision-accumulation"

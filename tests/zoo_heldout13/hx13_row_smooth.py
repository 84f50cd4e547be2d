"""In-place 3-tap smoothing along the last axis (the [1, 2, 1] / 4 binomial filter used to de-alias feature maps
and smooth attention priors), edges replicated: x[m, j] <- (x[m, j-1] + 2 x[m, j] + x[m, j+1]) / 4.

A 2-D grid: rows on axis 0, BLOCK_N column blocks on axis 1. Each program reads its block and one neighbour on
each side, and writes into a scratch buffer that is copied back, so the caller's tensor is updated in place.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def smooth_kernel(x_ptr, y_ptr, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = j < N
    left = tl.maximum(j - 1, 0)
    right = tl.minimum(j + 1, N - 1)
    x_row = x_ptr + row * stride_xm
    xl = tl.load(x_row + left * stride_xn, mask=mask, other=0.0).to(tl.float32)
    xc = tl.load(x_row + j * stride_xn, mask=mask, other=0.0).to(tl.float32)
    xr = tl.load(x_row + right * stride_xn, mask=mask, other=0.0).to(tl.float32)
    y = 0.25 * xl + 0.5 * xc + 0.25 * xr
    tl.store(y_ptr + row * stride_ym + j * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def row_smooth_(x: torch.Tensor, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    if M == 0 or N == 0:
        return x
    smooth_kernel[(M, triton.cdiv(N, BLOCK_N))](x, x, N, x.stride(0), x.stride(1), x.stride(0), x.stride(1),
                                                BLOCK_N=BLOCK_N)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    xp = torch.cat([x[:, :1], x, x[:, -1:]], dim=1)
    return 0.25 * xp[:, :-2] + 0.5 * xp[:, 1:-1] + 0.25 * xp[:, 2:]


BUG_CLASS = "race"

spec = kcheck.Spec(
    name="hx13_row_smooth",
    kernel=row_smooth_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x", mutated=True)],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=256, real=())},
    configs=[{"BLOCK_N": 64}, {"BLOCK_N": 256}],
)

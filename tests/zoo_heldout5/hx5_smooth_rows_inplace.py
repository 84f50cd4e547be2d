"""In-place binomial smoothing along the last dimension (a [1, 2, 1] / 4 blur with zero padding), as a
post-processing step on large score maps where a second buffer is not wanted:
x[m, j] <- (x[m, j - 1] + 2 x[m, j] + x[m, j + 1]) / 4, the right-hand side on the values before the call.

Programs tile (row, BLOCK_N columns). Each program reads its tile and the neighbouring column on either side,
all before it stores, then writes the tile back in place. fp32 math, the input's dtype and strides; int64 offsets.
The smoothed tensor (the input itself) is returned.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def smooth_rows_kernel(x_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    base = x_ptr + row * stride_m
    mask = cols < N
    left_mask = mask & (cols >= 1)
    right_mask = (cols + 1) < N
    center = tl.load(base + cols * stride_n, mask=mask, other=0.0).to(tl.float32)
    left = tl.load(base + (cols - 1) * stride_n, mask=left_mask, other=0.0).to(tl.float32)
    right = tl.load(base + (cols + 1) * stride_n, mask=right_mask, other=0.0).to(tl.float32)
    y = 0.25 * left + 0.5 * center + 0.25 * right
    tl.store(base + cols * stride_n, y.to(x_ptr.dtype.element_ty), mask=mask)


def smooth_rows_(x: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    if M == 0 or N == 0:
        return x
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    smooth_rows_kernel[(M, triton.cdiv(N, block_n))](x, N, x.stride(0), x.stride(1), BLOCK_N=block_n)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    w = torch.tensor([0.25, 0.5, 0.25], dtype=x.dtype, device=x.device)
    return torch.nn.functional.conv1d(x[:, None, :], w[None, None, :], padding=1)[:, 0, :]


spec = kcheck.Spec(
    name="hx5_smooth_rows_inplace",
    kernel=smooth_rows_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    # grid axis 1 holds the column tiles (at most 65535): N stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512, large=False)},
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 128}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "race"

"""Inclusive prefix sum along the last dimension, y[m, n] = sum_{j <= n} x[m, j]: one program per row walks the row
in BLOCK-wide chunks, scanning each chunk with tl.cumsum in fp32 and carrying the running total into the next.
Int64 offsets, any strides, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
GPU_ONLY = False


@triton.jit
def _cumsum_kernel(x_ptr, y_ptr, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros([1], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        y = tl.cumsum(x, axis=0) + carry
        tl.store(y_ptr + row * stride_ym + cols * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block = min(BLOCK, triton.next_power_of_2(N))
    _cumsum_kernel[(M,)](x, y, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK=block)
    return y


spec = kcheck.Spec(
    name="ho_cumsum_ok",
    kernel=cumsum,
    reference=lambda x: torch.cumsum(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=512, real=(2880,))},
    reduce=["N"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

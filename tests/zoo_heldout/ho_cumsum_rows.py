"""Inclusive prefix sum along the last dimension: y[m, n] = sum_{j <= n} x[m, j].

The grid is (rows, chunks of BLOCK columns); each program scans its chunk in fp32 with tl.cumsum and stores the
result in the input dtype. Int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"
GPU_ONLY = False


@triton.jit
def _cumsum_kernel(x_ptr, y_ptr, N, stride_xm, stride_xn, stride_ym, stride_yn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + row * stride_ym + cols * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def cumsum(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    _cumsum_kernel[(M, triton.cdiv(N, BLOCK))](x, y, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                               BLOCK=BLOCK)
    return y


spec = kcheck.Spec(
    name="ho_cumsum_rows",
    kernel=cumsum,
    reference=lambda x: torch.cumsum(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32, real=(), large=False), "N": kcheck.Dim(nominal=512, real=(2880,))},
    reduce=["N"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

"""Fused residual add + RMSNorm (pre-norm transformer block): h = x + r, y = h / sqrt(mean(h^2) + eps) * w.

One program per row, the whole row in one block (N up to 8192), fp32 math, output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"
GPU_ONLY = False

EPS = 1e-6


@triton.jit
def _add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, y_ptr, N, eps, stride_xm, stride_rm, stride_ym,
                        BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols <= N
    x = tl.load(x_ptr + row * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * stride_rm + cols, mask=mask, other=0.0).to(tl.float32)
    h = x + r
    rstd = tl.rsqrt(tl.sum(h * h, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride_ym + cols, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def add_rmsnorm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    assert N <= 8192, "rows longer than 8192 are not supported"
    assert x.stride(1) == 1 and residual.stride(1) == 1, "rows must be contiguous"
    _add_rmsnorm_kernel[(M,)](x, residual, weight, y, N, eps, x.stride(0), residual.stride(0), y.stride(0),
                              BLOCK_N=triton.next_power_of_2(N))
    return y


def reference(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    h = x + residual
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + EPS) * weight


spec = kcheck.Spec(
    name="ho_add_rmsnorm",
    kernel=add_rmsnorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, real=(2880,), max=8192, large=False)},
    reduce=["N"],
)

"""Inverse complementary log-log link of a GLM: p = 1 - exp(-exp(eta)), elementwise over a [M, N] matrix of linear
predictors. For small u = exp(eta) the second-order series u * (1 - u / 2) is used (1 - exp(-u) loses every digit
there). One program per (row, column block); int64 row offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def cloglog_kernel(eta_ptr, p_ptr, N, stride_em, stride_en, stride_pm, stride_pn, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    eta = tl.load(eta_ptr + row * stride_em + cols * stride_en, mask=mask, other=0.0).to(tl.float32)
    u = tl.exp(eta)
    p = tl.where(u < 1e-3, u * (1.0 - 0.5 * u), 1.0 - tl.exp(-u))
    tl.store(p_ptr + row * stride_pm + cols * stride_pn, p.to(p_ptr.dtype.element_ty), mask=mask)


def inverse_cloglog(eta: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, N = eta.shape
    p = torch.empty((M, N), dtype=eta.dtype, device=eta.device)
    if M == 0 or N == 0:
        return p
    grid = (M, triton.cdiv(N, BLOCK))
    cloglog_kernel[grid](eta, p, N, eta.stride(0), eta.stride(1), p.stride(0), p.stride(1), BLOCK=BLOCK)
    return p


def reference(eta: torch.Tensor) -> torch.Tensor:
    return -torch.expm1(-torch.exp(eta))


spec = kcheck.Spec(
    name="hx30_cloglog_link",
    kernel=inverse_cloglog,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="eta")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1500)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

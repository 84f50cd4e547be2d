"""EWMA (RiskMetrics-style) volatility of return series: v_0 = r_0^2, v_t = lam * v_(t-1) + (1 - lam) * r_t^2,
sigma_t = sqrt(v_t).

returns is [M, T] (one asset per row, any strides), sigma is [M, T]. The recursion runs along time, so each
program owns BLOCK_M assets and steps through t, keeping their variances in fp32 registers."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def ewma_vol_kernel(r_ptr, s_ptr, M, T, lam, stride_rm, stride_rt, stride_sm, stride_st, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    mask = rows < M
    r_row = r_ptr + rows * T
    s_row = s_ptr + rows * stride_sm
    r0 = tl.load(r_row, mask=mask, other=0.0).to(tl.float32)
    v = r0 * r0
    tl.store(s_row, tl.sqrt(v).to(s_ptr.dtype.element_ty), mask=mask)
    for t in range(1, T):
        r = tl.load(r_row + t * stride_rt, mask=mask, other=0.0).to(tl.float32)
        v = lam * v + (1.0 - lam) * (r * r)
        tl.store(s_row + t * stride_st, tl.sqrt(v).to(s_ptr.dtype.element_ty), mask=mask)


def ewma_volatility(returns: torch.Tensor, lam: float, BLOCK_M: int = 32) -> torch.Tensor:
    M, T = returns.shape
    sigma = torch.empty((M, T), dtype=returns.dtype, device=returns.device)
    if M and T:
        ewma_vol_kernel[(triton.cdiv(M, BLOCK_M),)](returns, sigma, M, T, lam, returns.stride(0), returns.stride(1),
                                                    sigma.stride(0), sigma.stride(1), BLOCK_M=BLOCK_M)
    return sigma


def reference(returns: torch.Tensor, lam: float) -> torch.Tensor:
    M, T = returns.shape
    out = torch.empty_like(returns)
    if T == 0:
        return out
    v = returns[:, 0] ** 2
    out[:, 0] = v.sqrt()
    for t in range(1, T):
        v = lam * v + (1.0 - lam) * returns[:, t] ** 2
        out[:, t] = v.sqrt()
    return out


spec = kcheck.Spec(
    name="hx19_ewma_volatility",
    kernel=ewma_volatility,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="returns")],
    params={"lam": [0.94, 0.97]},
    dims={"M": kcheck.Dim(nominal=64), "T": kcheck.Dim(nominal=252, max=1024, real=())},
    configs=[{"BLOCK_M": 32}, {"BLOCK_M": 8}],
)

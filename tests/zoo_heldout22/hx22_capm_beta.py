"""CAPM beta of each asset against the market: beta[m] = cov(r[m, :], mkt) / var(mkt), 0 where var(mkt) == 0.

One program per asset, two passes over the history in BLOCK_N chunks (fp32):
  1. means, each as shift + mean of (x - shift) with the first value as shift (exact for constant series);
  2. deviations d = x - mean, with the corrected two-pass sums
     cov * N = sum dr*dm - sum dr * sum dm / N,   var * N = sum dm^2 - (sum dm)^2 / N
     (the second terms cancel the rounding of the means).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def beta_kernel(r_ptr, m_ptr, out_ptr, N, srm, srn, smn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    r_row = r_ptr + row * srm
    k_r = tl.load(r_row, mask=N > 0, other=0.0).to(tl.float32)
    k_m = tl.load(m_ptr, mask=N > 0, other=0.0).to(tl.float32)
    acc_r = tl.zeros([BLOCK_N], dtype=tl.float32)
    acc_m = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        acc_r += tl.where(mask, tl.load(r_row + cols * srn, mask=mask, other=0.0).to(tl.float32) - k_r, 0.0)
        acc_m += tl.where(mask, tl.load(m_ptr + cols * smn, mask=mask, other=0.0).to(tl.float32) - k_m, 0.0)
    mean_r = k_r + tl.sum(acc_r, axis=0) / N
    mean_m = k_m + tl.sum(acc_m, axis=0) / N
    s_r = tl.zeros([BLOCK_N], dtype=tl.float32)
    s_m = tl.zeros([BLOCK_N], dtype=tl.float32)
    s_rm = tl.zeros([BLOCK_N], dtype=tl.float32)
    s_mm = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        r = tl.load(r_row + cols * srn, mask=mask, other=0.0).to(tl.float32)
        m = tl.load(m_ptr + cols * smn, mask=mask, other=0.0).to(tl.float32)
        dr = tl.where(mask, r, 0.0)
        dm = tl.where(mask, m, 0.0)
        s_r += dr
        s_m += dm
        s_rm += dr * dm
        s_mm += dm * dm
    sum_m = tl.sum(s_m, axis=0)
    cov = tl.sum(s_rm, axis=0) - tl.sum(s_r, axis=0) * sum_m / N
    var = tl.sum(s_mm, axis=0) - sum_m * sum_m / N
    beta = tl.where(var == 0.0, 0.0, cov / var)
    tl.store(out_ptr + row, beta.to(out_ptr.dtype.element_ty))


def capm_beta(returns, market, BLOCK_N=256):
    M, N = returns.shape
    if N == 0:
        return torch.zeros((M,), dtype=returns.dtype, device=returns.device)
    out = torch.empty((M,), dtype=returns.dtype, device=returns.device)
    if M:
        beta_kernel[(M,)](returns, market, out, N, returns.stride(0), returns.stride(1), market.stride(0),
                          BLOCK_N=BLOCK_N)
    return out


def reference(returns, market):
    rc = returns - returns.mean(-1, keepdim=True)
    mc = market - market.mean()
    cov = (rc * mc).sum(-1)
    var = (mc * mc).sum()
    return torch.where(var == 0, torch.zeros_like(cov), cov / var)


spec = kcheck.Spec(
    name="hx22_capm_beta",
    kernel=capm_beta,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="returns"), kcheck.Tensor("N", name="market")],
    dims={"M": kcheck.Dim(nominal=24, max=64, real=()), "N": kcheck.Dim(nominal=1000, real=(2520,))},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

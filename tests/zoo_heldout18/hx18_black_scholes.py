"""Black-Scholes prices of European call and put options (no dividends), one option per element:

    d1 = (ln(S / K) + (r + sigma^2 / 2) T) / (sigma sqrt(T)),   d2 = d1 - sigma sqrt(T)
    call = S Phi(d1) - K exp(-r T) Phi(d2)
    put  = K exp(-r T) Phi(-d2) - S Phi(-d1)

with Phi the standard normal CDF, Phi(z) = (1 + erf(z / sqrt(2))) / 2. Inputs: spot S, strike K, maturity T
(years) and volatility sigma, (N,) each, positive; the risk-free rate r is a mode. Two outputs, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def _phi(z):
    return 0.5 * (1.0 + tl.math.erf(z * 1.4142135623730951))


@triton.jit
def black_scholes_kernel(s_ptr, k_ptr, t_ptr, v_ptr, call_ptr, put_ptr, n, r, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    m = offs < n
    S = tl.load(s_ptr + offs, mask=m, other=1.0).to(tl.float32)
    K = tl.load(k_ptr + offs, mask=m, other=1.0).to(tl.float32)
    T = tl.load(t_ptr + offs, mask=m, other=1.0).to(tl.float32)
    vol = tl.load(v_ptr + offs, mask=m, other=1.0).to(tl.float32)
    vsqrt = vol * tl.sqrt(T)
    d1 = (tl.log(S / K) + (r + 0.5 * vol * vol) * T) / vsqrt
    d2 = d1 - vsqrt
    disc_k = K * tl.exp(-r * T)
    call = S * _phi(d1) - disc_k * _phi(d2)
    put = disc_k * _phi(-d2) - S * _phi(-d1)
    tl.store(call_ptr + offs, call.to(call_ptr.dtype.element_ty), mask=m)
    tl.store(put_ptr + offs, put.to(put_ptr.dtype.element_ty), mask=m)


def black_scholes(spot, strike, maturity, vol, r=0.03, BLOCK=1024):
    n = spot.numel()
    call = torch.empty_like(spot)
    put = torch.empty_like(spot)
    if n:
        black_scholes_kernel[(triton.cdiv(n, BLOCK),)](spot.contiguous(), strike.contiguous(),
                                                       maturity.contiguous(), vol.contiguous(), call, put, n, r,
                                                       BLOCK=BLOCK)
    return call, put


def _phi_ref(z):
    return 0.5 * (1 + torch.erf(z / 2 ** 0.5))


def reference(spot, strike, maturity, vol, r=0.03):
    vsqrt = vol * torch.sqrt(maturity)
    d1 = (torch.log(spot / strike) + (r + 0.5 * vol ** 2) * maturity) / vsqrt
    d2 = d1 - vsqrt
    disc_k = strike * torch.exp(-r * maturity)
    return spot * _phi_ref(d1) - disc_k * _phi_ref(d2), disc_k * _phi_ref(-d2) - spot * _phi_ref(-d1)


def _price(ctx):  # spot and strike around 100, lognormal spread of 25%
    return (100.0 * torch.exp(0.25 * torch.randn(ctx.dims["N"], generator=ctx.generator))).to(ctx.dtype).to(ctx.device)


def _maturity(ctx):  # one week to three years
    return (0.02 + 3.0 * torch.rand(ctx.dims["N"], generator=ctx.generator)).to(ctx.dtype).to(ctx.device)


def _vol(ctx):  # 5% to 80% a year
    return (0.05 + 0.75 * torch.rand(ctx.dims["N"], generator=ctx.generator)).to(ctx.dtype).to(ctx.device)


BUG_CLASS = "wrong-constant"

spec = kcheck.Spec(
    name="hx18_black_scholes",
    kernel=black_scholes,
    reference=reference,
    inputs=[kcheck.Custom(_price, name="spot", dims=("N",)), kcheck.Custom(_price, name="strike", dims=("N",)),
            kcheck.Custom(_maturity, name="maturity", dims=("N",)), kcheck.Custom(_vol, name="vol", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    params={"r": [0.03, 0.0]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

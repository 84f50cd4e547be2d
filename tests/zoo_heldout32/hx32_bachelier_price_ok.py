"""Bachelier (normal-model) prices of European options on a forward, per contract: with forward F, strike K and
normal total volatility s = sigma sqrt(T) (price units), d = (F - K) / s,

    call = (F - K) Phi(d) + s phi(d),     put = (K - F) Phi(-d) + s phi(d)

(undiscounted; the convention quoted for interest-rate options and for negative prices). s and the option type are
modes; Phi(d) = 0.5 (1 + erf(d / sqrt 2)).

1-D kernel over the contracts, BLOCK per program, int64 offsets, strides honoured, fp32 inside, prices in the input
dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def bachelier_kernel(f_ptr, k_ptr, out_ptr, n, vol, s_f, s_k, IS_CALL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    f = tl.load(f_ptr + offs * s_f, mask=mask, other=0.0).to(tl.float32)
    k = tl.load(k_ptr + offs * s_k, mask=mask, other=0.0).to(tl.float32)
    m = f - k if IS_CALL else k - f  # moneyness of the option's own side
    d = m / vol
    cdf = 0.5 * (1.0 + tl.math.erf(d * 0.7071067811865476))
    pdf = 0.3989422804014327 * tl.exp(-0.5 * d * d)
    price = m * cdf + vol * pdf
    tl.store(out_ptr + offs, price.to(out_ptr.dtype.element_ty), mask=mask)


def bachelier_price(forward: torch.Tensor, strike: torch.Tensor, vol: float = 1.0, is_call: bool = True,
                    BLOCK: int = 1024) -> torch.Tensor:
    n = forward.numel()
    out = torch.empty((n,), dtype=forward.dtype, device=forward.device)
    if n:
        bachelier_kernel[(triton.cdiv(n, BLOCK),)](forward, strike, out, n, float(vol), forward.stride(0),
                                                   strike.stride(0), IS_CALL=bool(is_call), BLOCK=BLOCK)
    return out


def reference(forward: torch.Tensor, strike: torch.Tensor, vol: float = 1.0, is_call: bool = True) -> torch.Tensor:
    m = forward - strike if is_call else strike - forward
    d = m / vol
    return m * torch.special.ndtr(d) + vol * torch.exp(-0.5 * d * d) / math.sqrt(2.0 * math.pi)


spec = kcheck.Spec(
    name="hx32_bachelier_price_ok",
    kernel=bachelier_price,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="forward"), kcheck.Tensor("N", name="strike")],
    dims={"N": kcheck.Dim(nominal=3000, real=())},
    params={"vol": [1.0, 0.2], "is_call": [True, False]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

"""Stochastic oscillator %K (Lane) over a trailing window, for many price series at once:

    %K[s, t] = 100 * (close[s, t] - LL) / (HH - LL)

with HH the highest high and LL the lowest low of the last ``window`` bars (fewer at the start of a series). A flat
window (HH == LL) gives the neutral 50. NaN bars are skipped by the running max/min, as a GPU's max does.

Inputs are [S, T] (series by bars) with any strides. One program per tile of BLOCK_S series by BLOCK_T bars walks
back over the window, one load of highs and one of lows per lag; the arithmetic is fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def stoch_k_kernel(high_ptr, low_ptr, close_ptr, out_ptr, S, T, window,
                   s_hs, s_ht, s_ls, s_lt, s_cs, s_ct, s_os, s_ot,
                   BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    inside = (rows < S)[:, None] & (cols < T)[None, :]
    hh = tl.full([BLOCK_S, BLOCK_T], -float("inf"), dtype=tl.float32)
    ll = tl.full([BLOCK_S, BLOCK_T], float("inf"), dtype=tl.float32)
    for lag in range(0, window):
        t = cols - lag
        ok = inside & (t >= 0)[None, :]
        h = tl.load(high_ptr + rows[:, None] * s_hs + t[None, :] * s_ht, mask=ok, other=-float("inf"))
        lo = tl.load(low_ptr + rows[:, None] * s_ls + t[None, :] * s_lt, mask=ok, other=float("inf"))
        hh = tl.maximum(hh, h.to(tl.float32))
        ll = tl.minimum(ll, lo.to(tl.float32))
    c = tl.load(close_ptr + rows[:, None] * s_cs + cols[None, :] * s_ct, mask=inside, other=0.0).to(tl.float32)
    spread = hh - ll
    k = 100.0 * (c - ll) / spread
    tl.store(out_ptr + rows[:, None] * s_os + cols[None, :] * s_ot, k.to(out_ptr.dtype.element_ty), mask=inside)


def stochastic_k(high: torch.Tensor, low: torch.Tensor, close: torch.Tensor, window: int = 14,
                 BLOCK_S: int = 8, BLOCK_T: int = 128) -> torch.Tensor:
    S, T = close.shape
    out = torch.empty((S, T), dtype=close.dtype, device=close.device)
    if out.numel() == 0:
        return out
    grid = (triton.cdiv(S, BLOCK_S), triton.cdiv(T, BLOCK_T))
    stoch_k_kernel[grid](high, low, close, out, S, T, window,
                         high.stride(0), high.stride(1), low.stride(0), low.stride(1),
                         close.stride(0), close.stride(1), out.stride(0), out.stride(1),
                         BLOCK_S=BLOCK_S, BLOCK_T=BLOCK_T)
    return out


def reference(high: torch.Tensor, low: torch.Tensor, close: torch.Tensor, window: int = 14) -> torch.Tensor:
    inf = float("inf")
    h = torch.where(torch.isnan(high), -inf, high)
    lo = torch.where(torch.isnan(low), inf, low)
    hh = torch.nn.functional.pad(h, (window - 1, 0), value=-inf).unfold(-1, window, 1).amax(-1)
    ll = torch.nn.functional.pad(lo, (window - 1, 0), value=inf).unfold(-1, window, 1).amin(-1)
    spread = hh - ll
    return torch.where(spread != 0, 100.0 * (close - ll) / spread, torch.full_like(close, 50.0))


spec = kcheck.Spec(
    name="hx26_stochastic_oscillator",
    kernel=stochastic_k,
    reference=reference,
    inputs=[kcheck.Tensor("S", "T", name="high"), kcheck.Tensor("S", "T", name="low"),
            kcheck.Tensor("S", "T", name="close")],
    dims={"S": kcheck.Dim(nominal=12), "T": kcheck.Dim(nominal=300)},
    params={"window": [14, 3]},
    configs=[{"BLOCK_S": 8, "BLOCK_T": 128}, {"BLOCK_S": 16, "BLOCK_T": 32}],
)

"""Spectral whitening of a batch of spectrograms X[B, F, T] (frequency bins by frames), as used before ambient-noise
cross-correlation: every frequency bin is divided by its mean amplitude over time,

    Y[b, f, t] = X[b, f, t] / (mean over t of |X[b, f, :]| + eps)

so that all bins carry comparable energy. One program per BLOCK frequency bins of one spectrogram; the first pass
accumulates |X| over BLOCK x BLOCK tiles of (bins, frames) in fp32, the second pass writes the scaled tile.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"

EPS = 1e-6


@triton.jit
def whiten_kernel(x_ptr, y_ptr, F, T, eps, s_xb, s_xf, s_xt, s_yb, s_yf, s_yt, BLOCK: tl.constexpr):
    b = tl.program_id(1).to(tl.int64)
    f = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    f_ok = f < F
    x_row = x_ptr + b * s_xb + f[:, None] * s_xf
    y_row = y_ptr + b * s_yb + f[:, None] * s_yf
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for t0 in range(0, T, BLOCK):
        t = t0 + tl.arange(0, BLOCK).to(tl.int64)
        m = f_ok[:, None] & (t < T)[None, :]
        x = tl.load(x_row + t[None, :] * s_xt, mask=m, other=0.0).to(tl.float32)
        acc += tl.sum(tl.abs(x), axis=0)
    inv = 1.0 / (acc / T + eps)
    for t0 in range(0, T, BLOCK):
        t = t0 + tl.arange(0, BLOCK).to(tl.int64)
        m = f_ok[:, None] & (t < T)[None, :]
        x = tl.load(x_row + t[None, :] * s_xt, mask=m, other=0.0).to(tl.float32)
        tl.store(y_row + t[None, :] * s_yt, (x * inv[:, None]).to(y_ptr.dtype.element_ty), mask=m)


def spectral_whiten(x: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    B, F, T = x.shape
    y = torch.empty((B, F, T), dtype=x.dtype, device=x.device)
    if y.numel() == 0:
        return y
    whiten_kernel[(triton.cdiv(F, BLOCK), B)](x, y, F, T, EPS, x.stride(0), x.stride(1), x.stride(2),
                                              y.stride(0), y.stride(1), y.stride(2), BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return x / (x.abs().mean(-1, keepdim=True) + EPS)


spec = kcheck.Spec(
    name="hx26_spectral_whitening",
    kernel=spectral_whiten,
    reference=reference,
    inputs=[kcheck.Tensor("B", "F", "T", name="spec")],
    dims={"B": kcheck.Dim(nominal=2, max=3, real=()), "F": kcheck.Dim(nominal=96), "T": kcheck.Dim(nominal=150)},
    reduce=["T"],
    configs=[{"BLOCK": 32}, {"BLOCK": 64}],
)

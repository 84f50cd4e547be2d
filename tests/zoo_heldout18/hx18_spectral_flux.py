"""Spectral flux onset strength (half-wave rectified), per frame of a magnitude spectrogram X: (T, F),

    flux[t] = sum over f of max(X[t, f] - X[t - 1, f], 0),   with X[-1, :] = 0

One program per frame walks the F bins in BLOCK_F chunks, loading the frame and the one before it, and keeps a
BLOCK_F-wide running sum, reduced once at the end. Output (T,) in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def spectral_flux_kernel(x_ptr, out_ptr, F, s_t, s_f, BLOCK_F: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_F)
    acc = tl.zeros((BLOCK_F,), dtype=x_ptr.dtype.element_ty)
    for start in range(0, F, BLOCK_F):
        c = start + cols
        cur = tl.load(x_ptr + t * s_t + c * s_f, mask=c < F, other=0.0)
        prev = tl.load(x_ptr + (t - 1) * s_t + c * s_f, mask=(c < F) & (t > 0), other=0.0)
        d = cur - prev
        acc += tl.where(d < 0, 0.0, d)  # a NaN bin stays NaN, as in torch.clamp
    tl.store(out_ptr + t, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def spectral_flux(x, BLOCK_F=128):
    T, F = x.shape
    out = torch.empty((T,), dtype=x.dtype, device=x.device)
    if T == 0:
        return out
    spectral_flux_kernel[(T,)](x, out, F, x.stride(0), x.stride(1), BLOCK_F=BLOCK_F)
    return out


def reference(x):
    prev = torch.cat([torch.zeros_like(x[:1]), x[:-1]], dim=0)
    return torch.clamp(x - prev, min=0).sum(-1)


BUG_CLASS = "low-precision-accumulation"

spec = kcheck.Spec(
    name="hx18_spectral_flux",
    kernel=spectral_flux,
    reference=reference,
    inputs=[kcheck.Tensor("T", "F", name="spectrogram")],
    dims={"T": kcheck.Dim(nominal=64), "F": kcheck.Dim(nominal=513)},
    reduce=["F"],
    configs=[{"BLOCK_F": 128}, {"BLOCK_F": 256}],
)

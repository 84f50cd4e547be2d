"""SpecAugment masking of a batch of log-mel spectrograms [B, F, T] (Park et al., 2019): one band of frequency bins
[f0, f0 + fw) and one band of frames [t0, t0 + tw) are set to the fill value (0). The bands come as a mode (the
training loop draws them per step; here a few fixed ones, clipped to the spectrogram).

2-D tiles: grid axis 0 walks (batch, frequency tile), axis 1 the time tiles; every tile is read and written through
the tensors' strides. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def spec_augment_kernel(x_ptr, out_ptr, F, T, f0, f1, t0, t1, s_xb, s_xf, s_xt, s_ob, s_of, s_ot,
                        BLOCK_F: tl.constexpr, BLOCK_T: tl.constexpr):
    pid0 = tl.program_id(0).to(tl.int64)
    n_f = tl.cdiv(F, BLOCK_F)
    b = pid0 // n_f
    fs = (pid0 % n_f) * BLOCK_F + tl.arange(0, BLOCK_F).to(tl.int64)
    ts = tl.program_id(1).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    mask = (fs < F)[:, None] & (ts < T)[None, :]
    x = tl.load(x_ptr + b * s_xb + fs[:, None] * s_xf + ts[None, :] * s_xt, mask=mask, other=0.0)
    band = ((fs >= f0) & (fs < f1))[:, None] | ((ts >= t0) & (ts < t1))[None, :]
    y = tl.where(band, tl.zeros_like(x), x)
    tl.store(out_ptr + b * s_ob + fs[:, None] * s_of + ts[None, :] * s_ot, y, mask=mask)


def _band(start, width, size):
    lo = min(start, size)
    return lo, min(lo + width, size)


def spec_augment(x, bands=(8, 16, 20, 40), BLOCK_F=32, BLOCK_T=128):
    B, F, T = x.shape
    out = torch.empty((B, F, T), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    f0, f1 = _band(bands[0], bands[1], F)
    t0, t1 = _band(bands[2], bands[3], T)
    grid = (B * triton.cdiv(F, BLOCK_F), T // BLOCK_T)
    spec_augment_kernel[grid](x, out, F, T, f0, f1, t0, t1, x.stride(0), x.stride(1), x.stride(2),
                              out.stride(0), out.stride(1), out.stride(2), BLOCK_F=BLOCK_F, BLOCK_T=BLOCK_T)
    return out


def reference(x, bands=(8, 16, 20, 40)):
    B, F, T = x.shape
    f0, f1 = _band(bands[0], bands[1], F)
    t0, t1 = _band(bands[2], bands[3], T)
    y = x.clone()
    y[:, f0:f1, :] = 0
    y[:, :, t0:t1] = 0
    return y


spec = kcheck.Spec(
    name="hx15_spec_augment",
    kernel=spec_augment,
    reference=reference,
    inputs=[kcheck.Tensor("B", "F", "T", name="spectrogram")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=()), "F": kcheck.Dim(nominal=80, real=(128,)),
          "T": kcheck.Dim(nominal=200, real=(3000,))},
    configs=[{"BLOCK_F": 32, "BLOCK_T": 128}, {"BLOCK_F": 64, "BLOCK_T": 64}],
    params={"bands": [(8, 16, 20, 40), (0, 4, 100, 60)]},
)

"""Log-mel energies of spectrogram frames (speech and audio front ends): with |X| the STFT magnitudes [T, F]
(F = n_fft / 2 + 1 bins) and a triangular mel filterbank [MEL, F], out[t, m] = log(sum_f fb[m, f] |X[t, f]|^2 + eps).
One program per BLOCK_T frames holds their whole power spectra as a [BLOCK_T, BLOCK_F] fp32 tile (BLOCK_F = F
rounded up to a power of two, F <= 1025) and loops over the mel filters, one weighted row sum each. Strides passed
explicitly, int64 offsets."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"

EPS = 1e-6


@triton.jit
def log_mel_kernel(x_ptr, fb_ptr, out_ptr, T, F, MEL, eps, s_xt, s_xf, s_fm, s_ff, s_ot, s_om,
                   BLOCK_T: tl.constexpr, BLOCK_F: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    f = tl.arange(0, BLOCK_F).to(tl.int64)
    t_mask = t < T
    f_mask = f < F
    mag = tl.load(x_ptr + t[:, None] * s_xt + f[None, :] * s_xf, mask=t_mask[:, None] & f_mask[None, :],
                  other=0.0).to(tl.float32)
    power = mag * mag
    for m in range(0, MEL):
        w = tl.load(fb_ptr + m * s_fm + f * s_ff, mask=f_mask, other=0.0).to(tl.float32)
        e = tl.sum(power * w[None, :], axis=1)
        tl.store(out_ptr + t * s_ot + m * s_om, tl.log(e + eps).to(out_ptr.dtype.element_ty), mask=t_mask)


def log_mel_energies(mag, fb, TILE=4096):
    T, F = mag.shape
    MEL = fb.shape[0]
    out = torch.empty((T, MEL), dtype=mag.dtype, device=mag.device)
    if T == 0 or MEL == 0:
        return out
    block_f = F
    block_t = max(1, min(TILE // block_f, triton.next_power_of_2(T)))
    log_mel_kernel[(triton.cdiv(T, block_t),)](mag, fb, out, T, F, MEL, EPS, mag.stride(0), mag.stride(1),
                                               fb.stride(0), fb.stride(1), out.stride(0), out.stride(1),
                                               BLOCK_T=block_t, BLOCK_F=block_f)
    return out


def mel_filterbank(ctx):
    """MEL triangular filters on F bins (HTK mel scale, 16 kHz audio, edges from 0 Hz to Nyquist), peak 1."""
    n_mel, F = ctx.dims["MEL"], ctx.dims["F"]
    sr = 16000.0

    def hz_to_mel(hz):
        return 2595.0 * math.log10(1.0 + hz / 700.0)

    mel_pts = torch.linspace(0.0, hz_to_mel(sr / 2), n_mel + 2, dtype=torch.float64)
    hz_pts = 700.0 * (10.0 ** (mel_pts / 2595.0) - 1.0)
    bins = torch.linspace(0.0, sr / 2, F, dtype=torch.float64)
    lo, mid, hi = hz_pts[:-2, None], hz_pts[1:-1, None], hz_pts[2:, None]
    up = (bins[None, :] - lo) / (mid - lo)
    down = (hi - bins[None, :]) / (hi - mid)
    fb = torch.clamp(torch.minimum(up, down), min=0.0)
    return fb.to(ctx.dtype).to(ctx.device)


def reference(mag, fb):
    return torch.log((mag * mag) @ fb.T + EPS)


spec = kcheck.Spec(
    name="hx25_log_mel_energies",
    kernel=log_mel_energies,
    reference=reference,
    inputs=[kcheck.Tensor("T", "F", name="magnitude"), kcheck.Custom(mel_filterbank, name="filterbank",
                                                                      dims=("MEL", "F"))],
    dims={"T": kcheck.Dim(nominal=100), "F": kcheck.Dim(nominal=257, max=1025), "MEL": kcheck.Dim(nominal=40,
                                                                                                   max=128)},
    reduce=["F"],
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

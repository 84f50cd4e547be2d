"""Normalized cross-power spectrum for phase correlation (image registration, Kuglin & Hines): given two spectra
F = Fr + i Fi and G = Gr + i Gi of shape [M, N],

    R = F conj(G) / |F conj(G)|     (0 where F conj(G) = 0)

whose inverse FFT peaks at the shift between the images. Only the phase matters, so each spectrum element is first
divided by its larger component magnitude (no underflow for tiny spectra, no overflow for huge ones). One program
per BLOCK_M x BLOCK_N tile, four inputs and two outputs (real, imaginary), fp32 arithmetic, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def _unit_scale(re, im):
    big = tl.maximum(tl.abs(re), tl.abs(im))
    big = tl.where(big > 0.0, big, 1.0)
    return re / big, im / big


@triton.jit
def cross_power_kernel(fr_ptr, fi_ptr, gr_ptr, gi_ptr, or_ptr, oi_ptr, M, N,
                       s_fr0, s_fr1, s_fi0, s_fi1, s_gr0, s_gr1, s_gi0, s_gi1, s_o0, s_o1,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    c = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    m = (r < M)[:, None] & (c < N)[None, :]
    r = r[:, None]
    c = c[None, :]
    fr = tl.load(fr_ptr + r * s_fr0 + c * s_fr1, mask=m, other=0.0).to(tl.float32)
    fi = tl.load(fi_ptr + r * s_fi0 + c * s_fi1, mask=m, other=0.0).to(tl.float32)
    gr = tl.load(gr_ptr + r * s_gr0 + c * s_gr1, mask=m, other=0.0).to(tl.float32)
    gi = tl.load(gi_ptr + r * s_gi0 + c * s_gi1, mask=m, other=0.0).to(tl.float32)
    fr, fi = _unit_scale(fr, fi)
    gr, gi = _unit_scale(gr, gi)
    re = fr * gr + fi * gi
    im = fi * gr - fr * gi
    mag = tl.sqrt(re * re + im * im)
    inv = tl.where(mag > 0.0, 1.0 / mag, 0.0)
    tl.store(or_ptr + r * s_o0 + c * s_o1, (re * inv).to(or_ptr.dtype.element_ty), mask=m)
    tl.store(oi_ptr + r * s_o0 + c * s_o1, (im * inv).to(oi_ptr.dtype.element_ty), mask=m)


def cross_power(fr: torch.Tensor, fi: torch.Tensor, gr: torch.Tensor, gi: torch.Tensor,
                BLOCK_M: int = 16, BLOCK_N: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = fr.shape
    out_r = torch.empty((M, N), dtype=fr.dtype, device=fr.device)
    out_i = torch.empty((M, N), dtype=fr.dtype, device=fr.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        cross_power_kernel[grid](fr, fi, gr, gi, out_r, out_i, M, N, fr.stride(0), fr.stride(1), fi.stride(0),
                                 fi.stride(1), gr.stride(0), gr.stride(1), gi.stride(0), gi.stride(1),
                                 out_r.stride(0), out_r.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out_r, out_i


def _unit_scale_ref(re: torch.Tensor, im: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    nan0 = lambda v: torch.where(torch.isnan(v), torch.zeros_like(v), v)  # noqa: E731 (a GPU's max skips NaN)
    big = torch.maximum(nan0(re).abs(), nan0(im).abs())
    big = torch.where(big > 0, big, torch.ones_like(big))
    return re / big, im / big


def reference(fr: torch.Tensor, fi: torch.Tensor, gr: torch.Tensor,
              gi: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    fr, fi = _unit_scale_ref(fr, fi)
    gr, gi = _unit_scale_ref(gr, gi)
    cross = torch.complex(fr, fi) * torch.complex(gr, -gi)
    mag = cross.abs()
    inv = torch.where(mag > 0, 1.0 / mag, torch.zeros_like(mag))
    return cross.real * inv, cross.imag * inv


spec = kcheck.Spec(
    name="hx26_phase_correlation_ok",
    kernel=cross_power,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="f_re"), kcheck.Tensor("M", "N", name="f_im"),
            kcheck.Tensor("M", "N", name="g_re"), kcheck.Tensor("M", "N", name="g_im")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=120)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)

"""Henyey-Greenstein phase function for scattering in dust, clouds and participating media.

p[m, n] = (1 - g^2) / (4 pi (1 + g^2 - 2 g mu)^(3/2))
for medium m with asymmetry parameter g[m] in (-1, 1) and scattering-angle cosine mu[m, n] (clamped to [-1, 1];
a NaN cosine stays NaN). A 2-D grid of (medium, sample block) programs; fp32 arithmetic, x^(3/2) as x * sqrt(x).
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

INV_4PI = 1.0 / (4.0 * math.pi)


@triton.jit
def hg_phase_kernel(mu_ptr, g_ptr, out_ptr, N, s_mm, s_mn, s_g, s_om, s_on, BLOCK: tl.constexpr):
    m = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    g = tl.load(g_ptr + m * s_g).to(tl.float32)
    mu = tl.load(mu_ptr + m * s_mm + cols * s_mn, mask=mask, other=0.0).to(tl.float32)
    mu = tl.where(mu > 1.0, 1.0, tl.where(mu < -1.0, -1.0, mu))
    d = 1.0 + g * g - 2.0 * g * mu
    p = (1.0 - g * g) * INV_4PI / (d * tl.sqrt(d))
    tl.store(out_ptr + m * s_om + cols * s_on, p.to(out_ptr.dtype.element_ty), mask=mask)


def hg_phase(mu, g, BLOCK=256):
    M, N = mu.shape
    out = torch.empty_like(mu)
    if M == 0 or N == 0:
        return out
    hg_phase_kernel[(M, triton.cdiv(N, BLOCK))](mu, g, out, N, mu.stride(0), mu.stride(1), g.stride(0),
                                                out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(mu, g):
    mu = mu.clamp(-1.0, 1.0)
    g = g[:, None]
    return (1.0 - g * g) / (4.0 * math.pi * (1.0 + g * g - 2.0 * g * mu) ** 1.5)


def asymmetry(ctx):
    # g in (-0.9, 0.9): back-scattering to strongly forward-scattering media
    return (1.8 * ctx.rand(ctx.dims["M"], dtype=torch.float32) - 0.9).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_henyey_greenstein_ok",
    kernel=hg_phase,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="mu"), kcheck.Custom(asymmetry, name="g", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=12), "N": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

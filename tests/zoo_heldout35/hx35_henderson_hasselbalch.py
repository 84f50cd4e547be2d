"""Ionized fraction of weak acids across a pH grid (Henderson-Hasselbalch).

f[m, n] = 1 / (1 + 10^(pKa[m] - pH[m, n])) for drug m at the n-th pH sample: the fraction of the acid present as
its conjugate base. 10^u is computed as exp2(u * log2(10)) in fp32; 1 / (1 + inf) = 0 so very acidic samples give
exactly 0. A 2-D grid of (drug, sample block) programs, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"

LOG2_10 = 3.321928094887362


@triton.jit
def ionized_fraction_kernel(ph_ptr, pka_ptr, out_ptr, N, s_pm, s_pn, s_k, s_om, s_on, BLOCK: tl.constexpr):
    drug = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    pka = tl.load(pka_ptr + drug * s_k).to(tl.float32)
    ph = tl.load(ph_ptr + drug * s_pm + cols * s_pn, mask=mask, other=7.0).to(tl.float32)
    ratio = tl.exp2((pka - ph) * LOG2_10)
    frac = 1.0 / (1.0 + ratio)
    tl.store(out_ptr + drug * s_om + cols * s_on, frac.to(out_ptr.dtype.element_ty), mask=mask)


def ionized_fraction(ph, pka, BLOCK=256):
    M, N = ph.shape
    out = torch.empty_like(ph)
    if M == 0 or N == 0:
        return out
    grid = (M, N // BLOCK)
    ionized_fraction_kernel[grid](ph, pka, out, N, ph.stride(0), ph.stride(1), pka.stride(0), out.stride(0),
                                  out.stride(1), BLOCK=BLOCK)
    return out


def reference(ph, pka):
    return 1.0 / (1.0 + torch.pow(10.0, pka[:, None] - ph))


def pka_values(ctx):
    # weak acids: pKa between 2 and 10
    return (2.0 + 8.0 * ctx.rand(ctx.dims["M"], dtype=torch.float32)).to(ctx.dtype)


def ph_grid(ctx):
    # pH samples: randn around physiological 7.4 with a spread of 2 units (the case's pattern scales the spread)
    M, N = ctx.dims["M"], ctx.dims["N"]
    base = ctx.randn(M, N, dtype=torch.float32)
    if ctx.pattern == "large":
        base = base * 20.0
    elif ctx.pattern == "zeros":
        base = torch.zeros_like(base)
    return (7.4 + 2.0 * base).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_henderson_hasselbalch",
    kernel=ionized_fraction,
    reference=reference,
    inputs=[kcheck.Custom(ph_grid, name="ph", dims=("M", "N")), kcheck.Custom(pka_values, name="pka", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=12), "N": kcheck.Dim(nominal=900)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

"""Normalized difference index of two spectral bands (remote sensing: NDVI from near-infrared and red
reflectance, NDWI, ...).

Reflectances are magnitudes: out = (|nir| - |red|) / (|nir| + |red| + eps), in [-1, 1], 0 where both bands are
0. Elementwise over the flattened image; one program per BLOCK pixels, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"

EPS = 1e-6


@triton.jit
def ndi_kernel(a_ptr, b_ptr, out_ptr, n, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.abs(tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32))
    b = tl.abs(tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32))
    out = (a - b) / (a + b)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def normalized_difference(nir, red, BLOCK=1024):
    nir, red = nir.contiguous(), red.contiguous()
    out = torch.empty_like(nir)
    n = nir.numel()
    if n:
        ndi_kernel[(triton.cdiv(n, BLOCK),)](nir, red, out, n, EPS, BLOCK=BLOCK)
    return out


def reference(nir, red):
    a, b = nir.abs(), red.abs()
    return (a - b) / (a + b + EPS)


spec = kcheck.Spec(
    name="hx17_normalized_difference_index",
    kernel=normalized_difference,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="nir"), kcheck.Tensor("H", "W", name="red")],
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

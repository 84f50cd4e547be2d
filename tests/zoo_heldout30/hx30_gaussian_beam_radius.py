"""Optics: radius of a Gaussian beam at axial positions z (from the waist),

    w(z) = w0 * sqrt(1 + (z / zR)^2),   zR = pi * w0^2 / wavelength  (the Rayleigh range)

elementwise over a tensor of positions of any shape, flattened for a 1-D launch; fp32 arithmetic, int64 offsets.
w0 and the wavelength are in the same unit as z."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def beam_radius_kernel(z_ptr, out_ptr, n, w0, inv_zr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    z = tl.load(z_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = z * inv_zr
    w = w0 * tl.sqrt(1.0 + t * t)
    tl.store(out_ptr + offs, w.to(out_ptr.dtype.element_ty), mask=mask)


def beam_radius(z: torch.Tensor, w0: float = 1.0, wavelength: float = 0.5, BLOCK: int = 1024) -> torch.Tensor:
    out = torch.empty(z.shape, dtype=z.dtype, device=z.device)
    n = z.numel()
    if n == 0:
        return out
    flat = z.view(-1)
    zr = math.pi * w0 * w0 / wavelength
    beam_radius_kernel[(triton.cdiv(n, BLOCK),)](flat, out.view(-1), n, w0, 1.0 / zr, BLOCK=BLOCK)
    return out


def reference(z: torch.Tensor, w0: float = 1.0, wavelength: float = 0.5) -> torch.Tensor:
    zr = math.pi * w0 * w0 / wavelength
    return w0 * torch.sqrt(1.0 + (z / zr) ** 2)


spec = kcheck.Spec(
    name="hx30_gaussian_beam_radius",
    kernel=beam_radius,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="z")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    params={"w0": [1.0, 0.2], "wavelength": [0.5, 1.064]},
)

"""Schlick's approximation of the Fresnel reflectance for a map of cosines between view and half vectors:
F = F0 + (1 - F0) (1 - cos)^5, with cos clamped to [0, 1] (NaN counts as 0, as the GPU's max/min give) and the
reflectance at normal incidence F0 a mode (0.04 for dielectrics, 0.9 for a metal). Input [H, W], any strides; a flat
launch over the elements; fp32 math, output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def fresnel_kernel(c_ptr, out_ptr, n, W, sh, sw, f0, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // W
    col = offs % W
    x = tl.load(c_ptr + row * sh + col * sw, mask=mask, other=0.0)
    c = tl.minimum(tl.maximum(x.to(tl.float32), 0.0), 1.0)
    m = 1.0 - c
    m2 = m * m
    f = f0 + (1.0 - f0) * (m2 * m2 * m)
    tl.store(out_ptr + offs, x, mask=mask)


def fresnel_schlick(cos_theta: torch.Tensor, f0: float = 0.04, BLOCK: int = 1024) -> torch.Tensor:
    H, W = cos_theta.shape
    out = torch.empty((H, W), dtype=cos_theta.dtype, device=cos_theta.device)
    n = H * W
    if n:
        fresnel_kernel[(triton.cdiv(n, BLOCK),)](cos_theta, out, n, W, cos_theta.stride(0), cos_theta.stride(1), f0,
                                                 BLOCK=BLOCK)
    return out


def reference(cos_theta: torch.Tensor, f0: float = 0.04) -> torch.Tensor:
    c = torch.nan_to_num(cos_theta, nan=0.0).clamp(0.0, 1.0)
    return f0 + (1.0 - f0) * (1.0 - c) ** 5


spec = kcheck.Spec(
    name="hx24_fresnel_schlick",
    kernel=fresnel_schlick,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W")],
    params={"f0": [0.04, 0.9]},
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=100)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

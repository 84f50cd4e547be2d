"""GGX / Trowbridge-Reitz normal distribution function of a microfacet BRDF, per shading sample:

    alpha = roughness^2 (Disney's perceptual remapping),  c = clamp(n . h, 0, 1)
    D = alpha^2 / (pi ((n . h)^2 (alpha^2 - 1) + 1)^2)

The denominator's inner term is evaluated as (1 - c)(1 + c) + c^2 alpha^2, which does not cancel for glossy
surfaces seen near the mirror direction (c -> 1, alpha -> 0). A NaN cosine counts as 0 (facing away).

1-D kernel over the samples, BLOCK per program, int64 offsets, fp32 inside, the result in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def ggx_ndf_kernel(ndh_ptr, rough_ptr, out_ptr, n, s_c, s_r, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    c = tl.load(ndh_ptr + offs * s_c, mask=mask, other=0.0).to(tl.float32)
    rough = tl.load(rough_ptr + offs * s_r, mask=mask, other=0.0).to(tl.float32)
    c = tl.where(c > 0.0, tl.where(c < 1.0, c, 1.0), 0.0)
    alpha = rough * rough
    a2 = alpha * alpha
    q = (1.0 - c) * (1.0 + c) + c * c * a2
    d = a2 / (6.283185307179586 * q * q)
    tl.store(out_ptr + offs, d.to(out_ptr.dtype.element_ty), mask=mask)


def ggx_ndf(n_dot_h: torch.Tensor, roughness: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    n = n_dot_h.numel()
    out = torch.empty_like(n_dot_h, memory_format=torch.contiguous_format)
    if n:
        ggx_ndf_kernel[(triton.cdiv(n, BLOCK),)](n_dot_h, roughness, out, n, n_dot_h.stride(0), roughness.stride(0),
                                                 BLOCK=BLOCK)
    return out


def reference(n_dot_h: torch.Tensor, roughness: torch.Tensor) -> torch.Tensor:
    zero = torch.zeros_like(n_dot_h)
    c = torch.where(n_dot_h > 0, torch.where(n_dot_h < 1, n_dot_h, zero + 1), zero)
    a2 = roughness ** 4
    return a2 / (math.pi * (c * c * (a2 - 1) + 1) ** 2)


spec = kcheck.Spec(
    name="hx32_ggx_ndf",
    kernel=ggx_ndf,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="n_dot_h"), kcheck.Tensor("N", name="roughness")],
    dims={"N": kcheck.Dim(nominal=5000, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

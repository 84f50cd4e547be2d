"""Soft-light blend of two images (the Pegtop formula, continuous and without the branches of Photoshop's):
out = (1 - 2 b) a^2 + 2 b a, with a the base layer and b the blend layer. A flat launch over the elements of
contiguous copies of both layers (an input that already is contiguous is used as it is); fp32 math.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def soft_light_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = (1.0 - 2.0 * b) * (a * a) + 2.0 * b * a
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def soft_light_blend(base: torch.Tensor, blend: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    a = base.reshape(-1)
    b = blend.view(-1)
    out = torch.empty(base.shape, dtype=base.dtype, device=base.device)
    n = a.numel()
    if n:
        soft_light_kernel[(triton.cdiv(n, BLOCK),)](a, b, out, n, BLOCK=BLOCK)
    return out


def reference(base: torch.Tensor, blend: torch.Tensor) -> torch.Tensor:
    return (1.0 - 2.0 * blend) * (base * base) + 2.0 * blend * base


spec = kcheck.Spec(
    name="hx24_soft_light_blend",
    kernel=soft_light_blend,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="base"), kcheck.Tensor("H", "W", name="blend")],
    dims={"H": kcheck.Dim(nominal=72), "W": kcheck.Dim(nominal=120)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

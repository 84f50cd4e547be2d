"""Premultiplied alpha: rgb' = rgb * alpha per pixel, for an [P, 3] array of pixels and a [P] alpha, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def premultiply_kernel(rgb_ptr, a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = tl.load(rgb_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + offs // 3, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (c * a).to(out_ptr.dtype.element_ty), mask=mask)


def premultiply_alpha(rgb: torch.Tensor, alpha: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    rgb, alpha = rgb.contiguous(), alpha.contiguous()
    out = torch.empty_like(rgb)
    n = rgb.numel()
    if n:
        premultiply_kernel[(triton.cdiv(n, BLOCK),)](rgb, alpha, out, n, BLOCK=BLOCK)
    return rgb


def reference(rgb: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    return rgb * alpha[:, None]


spec = kcheck.Spec(
    name="hx21_premultiply_alpha",
    kernel=premultiply_alpha,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb"), kcheck.Tensor("P", name="alpha")],
    dims={"P": kcheck.Dim(nominal=4096, max=16384)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
BUG_CLASS = "no-op"

"""Bent-identity activation for training, forward and backward in Triton behind an autograd.Function.

f(x) = (sqrt(x^2 + 1) - 1) / 2 + x, f'(x) = x / (2 sqrt(x^2 + 1)) + 1. Elementwise over the flattened tensor,
one program per BLOCK elements, fp32 arithmetic; the backward multiplies the upstream gradient by f'(x).
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

BLOCK = 512


@triton.jit
def bent_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = (tl.sqrt(x * x + 1.0) - 1.0) * 0.5 + x
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def bent_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = x / tl.sqrt(x * x + 1.0) + 1.0
    tl.store(dx_ptr + offs, (g * d).to(dx_ptr.dtype.element_ty), mask=mask)


class BentIdentity(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            bent_fwd_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        g = g.contiguous()
        dx = torch.empty_like(x)
        n = x.numel()
        if n:
            bent_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, x, dx, n, BLOCK=BLOCK)
        return dx


def bent_identity(x):
    return BentIdentity.apply(x)


def reference(x):
    return (torch.sqrt(x * x + 1) - 1) / 2 + x


spec = kcheck.Spec(
    name="hx17_bent_identity",
    kernel=bent_identity,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=256)},
    grad=True,
)

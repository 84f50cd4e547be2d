"""ELiSH activation for training (Basirat & Roth): f(x) = x * sigmoid(x) for x >= 0 and (exp(x) - 1) * sigmoid(x)
for x < 0, with its derivative

    f'(x) = s + x s (1 - s)                       for x >= 0
    f'(x) = e^x s + (e^x - 1) s (1 - s)           for x < 0,    s = sigmoid(x)

Forward and backward are flat 1-D Triton launches over the elements (a non-contiguous input is copied once), int64
offsets, fp32 math, results in the input dtype.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def elish_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.sigmoid(x)
    xn = tl.minimum(x, 0.0)
    em1 = tl.where(xn > -1e-3, xn + 0.5 * xn * xn + xn * xn * xn / 6.0, tl.exp(xn) - 1.0)  # exp(x) - 1, no cancellation
    neg = em1 * s
    y = tl.where(x >= 0, x * s, neg)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def elish_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.sigmoid(x)
    xn = tl.minimum(x, 0.0)
    e = tl.exp(xn)
    em1 = tl.where(xn > -1e-3, xn + 0.5 * xn * xn + xn * xn * xn / 6.0, e - 1.0)
    ds = s * (1.0 - s)
    d = tl.where(x >= 0, s + x * ds, e * s + em1 * ds)
    tl.store(dx_ptr + offs, (g * d).to(dx_ptr.dtype.element_ty), mask=mask)


def elish_forward(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    xf = x.reshape(-1)
    y = torch.empty_like(xf)
    n = xf.numel()
    if n:
        elish_fwd_kernel[(n // BLOCK,)](xf, y, n, BLOCK=BLOCK)
    return y.view(x.shape)


def elish_backward(g: torch.Tensor, x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    xf = x.reshape(-1)
    gf = g.reshape(-1)
    dx = torch.empty_like(xf)
    n = xf.numel()
    if n:
        elish_bwd_kernel[(triton.cdiv(n, BLOCK),)](gf, xf, dx, n, BLOCK=BLOCK)
    return dx.view(x.shape)


class ELiSH(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return elish_forward(x)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return elish_backward(g, x)


def elish(x: torch.Tensor) -> torch.Tensor:
    return ELiSH.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    s = torch.sigmoid(x)
    return torch.where(x >= 0, torch.clamp(x, min=0.0) * s, torch.expm1(torch.clamp(x, max=0.0)) * s)


spec = kcheck.Spec(
    name="hx24_elish_train",
    kernel=elish,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=200)},
    grad=True,
)

"""Normalized sinc activation for training (sinc-based filters and interpolation layers): y = sin(pi x) / (pi x),
y(0) = 1, as torch.sinc. Triton forward and backward behind a torch.autograd.Function, flat 1-D launches.

Arguments are reduced exactly before the trigonometry: r = x - 2 * floor(x / 2 + 1/2) lies in [-1, 1) and
sin(pi x) = sin(pi r), cos(pi x) = cos(pi r); sin is taken of the reflection of r into [-1/2, 1/2] (exact
subtractions), so large x lose no accuracy. With p = pi x::

    forward:   y = sin(p) / p,                      1 - p^2 / 6 where |p| < 1e-3 (0 / 0 at x = 0)
    backward:  dx = g * pi * (p cos p - sin p) / p^2,  the series -p/3 + p^3/30 - p^5/840 + p^7/45360 where
               |p| < 0.5 (the direct form cancels there)

fp32 arithmetic, int64 offsets; inputs made contiguous.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BLOCK = 1024


@triton.jit
def _reduce(x):
    r = x - 2.0 * tl.floor(0.5 * x + 0.5)
    rs = tl.where(r > 0.5, 1.0 - r, tl.where(r < -0.5, -1.0 - r, r))
    return r, rs


@triton.jit
def sinc_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    r, rs = _reduce(x)
    p = 3.141592653589793 * x
    s = tl.sin(3.141592653589793 * rs)
    y = s / p
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sinc_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r, rs = _reduce(x)
    p = 3.141592653589793 * x
    s = tl.sin(3.141592653589793 * rs)
    c = tl.cos(3.141592653589793 * r)
    p2 = p * p
    series = p * (-1.0 / 3.0 + p2 * (1.0 / 30.0 + p2 * (-1.0 / 840.0 + p2 * (1.0 / 45360.0))))
    direct = (p * c - s) / p2
    dydx = 3.141592653589793 * tl.where(tl.abs(p) < 0.5, series, direct)
    tl.store(dx_ptr + offs, (g * dydx).to(dx_ptr.dtype.element_ty), mask=mask)


def sinc_forward(x: torch.Tensor) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty(xc.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        sinc_fwd_kernel[(triton.cdiv(n, BLOCK),)](xc, y, n, BLOCK=BLOCK)
    return y


def sinc_backward(g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    xc, gc = x.contiguous(), g.contiguous()
    dx = torch.empty(xc.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        sinc_bwd_kernel[(triton.cdiv(n, BLOCK),)](gc, xc, dx, n, BLOCK=BLOCK)
    return dx


class SincFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return sinc_forward(x)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return sinc_backward(g, x)


def sinc(x: torch.Tensor) -> torch.Tensor:
    return SincFunction.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.sinc(x)


BUG_CLASS = "division-by-zero"

spec = kcheck.Spec(
    name="hx23_sinc_train",
    kernel=sinc,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

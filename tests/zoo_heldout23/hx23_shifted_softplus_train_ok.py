"""Shifted softplus for training (the activation of SchNet-style molecular networks): y = softplus(x) - log(2),
zero at x = 0. Triton forward and backward behind a torch.autograd.Function, flat 1-D launches.

softplus(x) = max(x, 0) + log(1 + exp(-|x|)) (no overflow for any x); dy/dx = sigmoid(x), computed from
e = exp(-|x|) as 1 / (1 + e) for x >= 0 and e / (1 + e) below (no overflow either).
fp32 arithmetic, int64 offsets; inputs made contiguous.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BLOCK = 1024
LOG2 = math.log(2.0)


@triton.jit
def ssp_fwd_kernel(x_ptr, y_ptr, n, log2, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.maximum(x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x))) - log2
    y = tl.where(x != x, x, y)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def ssp_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(-tl.abs(x))
    sig = tl.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    sig = tl.where(x != x, x, sig)
    tl.store(dx_ptr + offs, (g * sig).to(dx_ptr.dtype.element_ty), mask=mask)


def ssp_forward(x: torch.Tensor) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty(xc.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        ssp_fwd_kernel[(triton.cdiv(n, BLOCK),)](xc, y, n, LOG2, BLOCK=BLOCK)
    return y


def ssp_backward(g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    xc, gc = x.contiguous(), g.contiguous()
    dx = torch.empty(xc.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        ssp_bwd_kernel[(triton.cdiv(n, BLOCK),)](gc, xc, dx, n, BLOCK=BLOCK)
    return dx


class ShiftedSoftplusFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return ssp_forward(x)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return ssp_backward(g, x)


def shifted_softplus(x: torch.Tensor) -> torch.Tensor:
    return ShiftedSoftplusFunction.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.softplus(x) - LOG2


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx23_shifted_softplus_train_ok",
    kernel=shifted_softplus,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

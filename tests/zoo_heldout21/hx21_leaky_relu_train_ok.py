"""Leaky ReLU (negative slope 0.01) for training: y = x if x > 0 else 0.01 x; dx = g if x > 0 else 0.01 g.
Flat Triton forward and backward behind a torch.autograd.Function."""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

SLOPE = 0.01


@triton.jit
def leaky_fwd_kernel(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, tl.where(x > 0.0, x, slope * x).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def leaky_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, slope, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(dx_ptr + offs, tl.where(x > 0.0, g, slope * g).to(dx_ptr.dtype.element_ty), mask=mask)


class LeakyReLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            leaky_fwd_kernel[(triton.cdiv(n, 1024),)](x, y, n, SLOPE, BLOCK=1024)
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        g = g.contiguous()
        dx = torch.empty_like(x)
        n = x.numel()
        if n:
            leaky_bwd_kernel[(triton.cdiv(n, 1024),)](g, x, dx, n, SLOPE, BLOCK=1024)
        return dx


def leaky_relu(x: torch.Tensor) -> torch.Tensor:
    return LeakyReLUFunction.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.leaky_relu(x, SLOPE)


spec = kcheck.Spec(
    name="hx21_leaky_relu_train_ok",
    kernel=leaky_relu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1000, max=8192)},
    grad=True,
)
BUG_CLASS = None

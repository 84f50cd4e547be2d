"""The Laplace attention function of MEGA (Ma et al., 2022), for training: attention scores are mapped through a
Gaussian CDF instead of a softmax or relu^2,

    f(x) = 0.5 (1 + erf((x - mu) / (sigma sqrt(2)))),      mu = sqrt(1/2),  sigma = sqrt(1/(4 pi))

so that 1/(sigma sqrt(2)) = sqrt(2 pi), and its derivative

    f'(x) = sqrt(2) exp(-2 pi (x - mu)^2)

Triton forward and backward (elementwise over the flattened [batch, heads, length] scores, made contiguous) behind
a torch.autograd.Function; fp32 arithmetic, int64 offsets.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def laplace_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = (x - 0.7071067811865476) * 1.7724538509055159
    y = 0.5 * (1.0 + tl.erf(z))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def laplace_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = x - 0.7071067811865476
    dx = g * 1.4142135623730951 * tl.exp(-6.283185307179586 * d * d)
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def _launch(kernel: Any, n: int, *args: Any, BLOCK: int = 1024) -> None:
    if n:
        kernel[(triton.cdiv(n, BLOCK),)](*args, n, BLOCK=BLOCK)


class LaplaceAttentionFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        _launch(laplace_fwd_kernel, x.numel(), x, y)
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        g = g.contiguous()
        dx = torch.empty_like(x)
        _launch(laplace_bwd_kernel, x.numel(), g, x, dx)
        return dx


def laplace_attention_fn(x: torch.Tensor) -> torch.Tensor:
    return LaplaceAttentionFn.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    mu = math.sqrt(0.5)
    sigma = math.sqrt(1.0 / (4.0 * math.pi))
    return 0.5 * (1.0 + torch.erf((x - mu) / (sigma * math.sqrt(2.0))))


spec = kcheck.Spec(
    name="hx37_laplace_attention_fn_train",
    kernel=laplace_attention_fn,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "L", name="scores")],
    dims={"B": kcheck.Dim(nominal=4, real=()), "H": kcheck.Dim(nominal=8, real=()),
          "L": kcheck.Dim(nominal=160, real=())},
    grad=True,
)

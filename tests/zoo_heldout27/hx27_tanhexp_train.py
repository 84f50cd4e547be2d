"""TanhExp activation for training (Liu & Di, 2020): y = x * tanh(exp(x)), Triton forward and backward behind a
torch.autograd.Function.

dy/dx = tanh(e) + x * e * (1 - tanh(e)^2), e = exp(x). For x > 20, tanh(e) is 1 in fp32 and the second term is 0,
so e and the second term use min(x, 20) (a NaN input stays NaN). tanh(e) for e > 0 is (1 - t) / (1 + t) with
t = exp(-2e), or its series for small e where 1 - t would cancel. Everything is computed in fp32.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'exp-overflow'


@triton.jit
def _tanh_pos(e):
    t = tl.exp(-2.0 * e)
    e2 = e * e
    return tl.where(e < 0.05, e * (1.0 - e2 * (0.3333333333333333 - e2 * 0.13333333333333333)), (1.0 - t) / (1.0 + t))


@triton.jit
def tanhexp_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(tl.where(x > 20.0, 20.0, x))
    y = x * _tanh_pos(e)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def tanhexp_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    xc = x
    e = tl.exp(xc)
    th = _tanh_pos(e)
    dydx = th + xc * e * (1.0 - th * th)
    tl.store(dx_ptr + offs, (g * dydx).to(dx_ptr.dtype.element_ty), mask=mask)


BLOCK = 1024


class TanhExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            tanhexp_fwd_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        g = g.contiguous()
        dx = torch.empty_like(x)
        n = x.numel()
        if n:
            tanhexp_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, x, dx, n, BLOCK=BLOCK)
        return dx


def tanhexp(x: torch.Tensor) -> torch.Tensor:
    return TanhExp.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * torch.tanh(torch.exp(x.clamp(max=20.0)))


spec = kcheck.Spec(
    name="hx27_tanhexp_train",
    kernel=tanhexp,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

"""GELU with the tanh approximation (GPT-2, BERT's gelu_new), forward and backward as Triton kernels behind a
torch.autograd.Function:

    gelu(x) = 0.5 x (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3)
    gelu'(x) = 0.5 (1 + tanh(u)) + 0.5 x (1 - tanh(u)^2) sqrt(2/pi) (1 + 0.134145 x^2)

Flat 1-D kernels over contiguous buffers, fp32 math, int64 offsets.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

SQRT_2_OVER_PI = 0.7978845608028654


@triton.jit
def _tanh(u):
    a = tl.abs(u)
    e = tl.exp(-2.0 * a)
    a2 = a * a
    small = a * (1.0 - a2 * (1.0 / 3.0 - a2 * (2.0 / 15.0)))
    t = tl.where(a < 0.05, small, (1.0 - e) / (1.0 + e))
    return tl.where(u < 0, -t, t)


@triton.jit
def gelu_fwd_kernel(x_ptr, y_ptr, n, k0, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    th = _tanh(k0 * (x + 0.044715 * x * x * x))
    tl.store(y_ptr + offs, (0.5 * x * (1.0 + th)).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gelu_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, k0, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    th = _tanh(k0 * (x + 0.044715 * x * x * x))
    du = k0 * (1.0 + 0.044715 * x * x)
    d = 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * du
    tl.store(dx_ptr + offs, (g * d).to(dx_ptr.dtype.element_ty), mask=mask)


BLOCK = 1024


class GeluTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        xc = x.contiguous()
        y = torch.empty_like(xc)
        n = xc.numel()
        if n:
            gelu_fwd_kernel[(triton.cdiv(n, BLOCK),)](xc, y, n, SQRT_2_OVER_PI, BLOCK=BLOCK)
        ctx.save_for_backward(xc)
        return y.view(x.shape)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (xc,) = ctx.saved_tensors
        gc = g.contiguous()
        dx = torch.empty_like(xc)
        n = xc.numel()
        if n:
            gelu_bwd_kernel[(triton.cdiv(n, BLOCK),)](gc, xc, dx, n, SQRT_2_OVER_PI, BLOCK=BLOCK)
        return dx


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return GeluTanh.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x, approximate="tanh")


BUG_CLASS = "wrong-constant"

spec = kcheck.Spec(
    name="hx13_gelu_tanh",
    kernel=gelu_tanh,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

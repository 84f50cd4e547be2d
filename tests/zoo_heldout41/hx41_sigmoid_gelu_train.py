"""The sigmoid approximation of GELU (Hendrycks & Gimpel), y = x * sigmoid(1.702 x), for training: Triton forward
and backward behind a torch.autograd.Function.

Backward: with s = sigmoid(1.702 x), dy/dx = s + 1.702 x s (1 - s). Elementwise over an [M, N] tensor in
BLOCK-wide chunks of the flattened (contiguous) tensor, fp32 math, int64 offsets. The sigmoid is evaluated as
1 / (1 + exp(-z)), which is 0 (not NaN) when exp overflows.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def sigmoid_gelu_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-1.72 * x))
    tl.store(y_ptr + offs, (x * s).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sigmoid_gelu_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-1.702 * x))
    dx = g * (s + 1.702 * x * s * (1.0 - s))
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def _launch(kernel, n, *args, BLOCK=1024):
    if n:
        kernel[(triton.cdiv(n, BLOCK),)](*args, n, BLOCK=BLOCK)


class SigmoidGELU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x):
        xc = x.contiguous()
        y = torch.empty_like(xc)
        _launch(sigmoid_gelu_fwd_kernel, xc.numel(), xc, y)
        ctx.save_for_backward(xc)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        (xc,) = ctx.saved_tensors
        gc = g.contiguous()
        dx = torch.empty_like(xc)
        _launch(sigmoid_gelu_bwd_kernel, xc.numel(), gc, xc, dx)
        return dx


def sigmoid_gelu(x):
    return SigmoidGELU.apply(x)


def reference(x):
    return x * torch.sigmoid(1.702 * x)


spec = kcheck.Spec(
    name="sigmoid_gelu_train",
    kernel=sigmoid_gelu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=300, real=())},
    grad=True,
)

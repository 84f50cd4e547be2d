"""ELU (alpha = 1) for training: y = x if x > 0 else exp(x) - 1; dy/dx = 1 if x > 0 else exp(x). Flat Triton
forward and backward behind a torch.autograd.Function. exp(x) - 1 is computed as (u - 1) * x / log(u), u = exp(x)
(accurate near 0; u - 1 itself below -0.5), since the interpreter has no libdevice expm1."""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def elu_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.exp(x)
    em1 = tl.where(x < -0.5, u - 1.0, tl.where(u == 1.0, x, (u - 1.0) * x / tl.log(u)))
    y = tl.where(x > 0.0, x, em1)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def elu_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dx = tl.where(x > 0.0, g, g * tl.exp(x))
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


class ELUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            elu_fwd_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        g = g.contiguous()
        dx = torch.empty_like(x)
        n = x.numel()
        if n:
            elu_bwd_kernel[(triton.cdiv(n, 1024),)](g, x, dx, n, BLOCK=1024)
        return dx


def elu(x: torch.Tensor) -> torch.Tensor:
    return ELUFunction.apply(x)


spec = kcheck.Spec(
    name="hx21_elu_train",
    kernel=elu,
    reference=torch.nn.functional.elu,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1000, max=8192)},
    grad=True,
)
BUG_CLASS = "edge-guard"

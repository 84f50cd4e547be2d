"""Growing Cosine Unit activation (Noel et al. 2021), trainable: y = x cos(x), dy/dx = cos(x) - x sin(x).

Forward and backward are flat 1-D launches over the (contiguous) elements, BLOCK per program, fp32 math, int64
offsets; the backward reads the saved input and the upstream gradient.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def gcu_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * tl.cos(x)).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gcu_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dx = g * (tl.cos(x) - x * tl.sin(x))
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


class GCU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, BLOCK):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            gcu_fwd_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        ctx.save_for_backward(x)
        ctx.block = BLOCK
        return y

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        g = g.contiguous()
        dx = torch.empty_like(x)
        n = x.numel()
        if n:
            gcu_bwd_kernel[(triton.cdiv(n, ctx.block),)](g, x, dx, n, BLOCK=ctx.block)
        return dx, None


def gcu(x, BLOCK=1024):
    return GCU.apply(x, BLOCK)


def reference(x):
    return x * torch.cos(x)


spec = kcheck.Spec(
    name="hx22_gcu_train_ok",
    kernel=gcu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=384, real=(3072,))},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    grad=True,
)

"""Learnable soft-clipping limiter for training, per channel (last dimension) with a learnable log-ceiling s:

    c = exp(s[n]),  u = x / c,  y = c * tanh(u)

Backward, with g the upstream gradient and sech^2(u) = 1 - tanh^2(u):

    dx = g * sech^2(u)
    ds[n] = sum over rows of g * c * (tanh(u) - u * sech^2(u))

Flat elementwise kernels over the contiguous (M, N) input (channel of flat index i is i % N), fp32 arithmetic,
tanh and sech^2 from e = exp(-2|u|) (a Taylor series for tanh below |u| = 0.1). The per-element ds terms go to an
fp32 buffer summed over rows by the launcher.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def _tanh_sech2(u):
    a = tl.abs(u)
    e = tl.exp(-2.0 * a)
    big = (1.0 - e) / (1.0 + e)
    u2 = u * u
    small = a * (1.0 - u2 * (1.0 / 3.0 - u2 * (2.0 / 15.0)))
    t = tl.where(a < 0.1, small, big)
    t = tl.where(u < 0, -t, t)
    sech2 = 4.0 * e / ((1.0 + e) * (1.0 + e))
    return t, sech2


@triton.jit
def softclip_fwd_kernel(x_ptr, s_ptr, y_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ch = offs % N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    c = tl.exp(s)
    t, _ = _tanh_sech2(x * tl.exp(-s))
    tl.store(y_ptr + offs, (c * t).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softclip_bwd_kernel(g_ptr, x_ptr, s_ptr, dx_ptr, dsterm_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ch = offs // N
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    c = tl.exp(s)
    u = x * tl.exp(-s)
    t, sech2 = _tanh_sech2(u)
    tl.store(dx_ptr + offs, (g * sech2).to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dsterm_ptr + offs, g * c * (t - u * sech2), mask=mask)


BLOCK = 1024


class SoftClipFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        x, s = x.contiguous(), s.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            softclip_fwd_kernel[(triton.cdiv(n, BLOCK),)](x, s, y, n, x.shape[-1], BLOCK=BLOCK)
        ctx.save_for_backward(x, s)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor):
        x, s = ctx.saved_tensors
        g = g.contiguous()
        M, N = x.shape
        dx = torch.empty_like(x)
        dsterm = torch.empty((M, N), dtype=torch.float32, device=x.device)
        n = x.numel()
        if n == 0:
            return dx, torch.zeros_like(s)
        softclip_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, x, s, dx, dsterm, n, N, BLOCK=BLOCK)
        return dx, dsterm.sum(0).to(s.dtype)


def softclip(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    return SoftClipFunction.apply(x, s)


def reference(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    c = torch.exp(s)
    return c * torch.tanh(x / c)


spec = kcheck.Spec(
    name="softclip_limiter_train",
    kernel=softclip,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="log_ceiling")],
    dims={"M": kcheck.Dim(nominal=48, max=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

BUG_CLASS = "wrong-axis"

"""Tukey's biweight (bisquare) robust loss for training, elementwise on residuals r = pred - target with the usual
tuning constant c = 4.685 (95% efficiency under Gaussian noise):

    rho(r) = c^2 / 6 * (1 - (1 - (r / c)^2)^3)   for |r| <= c,   c^2 / 6 beyond
    psi(r) = d rho / d r = r * (1 - (r / c)^2)^2  for |r| <= c,   0 beyond

Forward and backward are Triton kernels (fp32 arithmetic, int64 offsets). A residual that is not finite has no
defined gradient: the backward gives NaN there, as autograd does for the reference."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

TUKEY_C = 4.685


@triton.jit
def biweight_fwd_kernel(p_ptr, t_ptr, out_ptr, n, C: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    r = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32) - tl.load(t_ptr + offs, mask=mask,
                                                                             other=0.0).to(tl.float32)
    u = r / C
    w = 1.0 - u * u
    rho = tl.where(tl.abs(r) <= C, (C * C / 6.0) * (1.0 - w * w * w), C * C / 6.0)
    tl.store(out_ptr + offs, rho.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def biweight_bwd_kernel(g_ptr, p_ptr, t_ptr, dp_ptr, dt_ptr, n, C: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32) - tl.load(t_ptr + offs, mask=mask,
                                                                             other=0.0).to(tl.float32)
    u = r / C
    w = 1.0 - u * u
    psi = tl.where(tl.abs(r) <= C, r * w * w, 0.0 * r)  # 0 * r: NaN for a non-finite residual
    d = g * psi
    tl.store(dp_ptr + offs, d.to(dp_ptr.dtype.element_ty), mask=mask)
    tl.store(dt_ptr + offs, (-d).to(dt_ptr.dtype.element_ty), mask=mask)


BLOCK = 1024


def biweight_forward(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    p, t = pred.contiguous(), target.contiguous()
    out = torch.empty(p.shape, dtype=p.dtype, device=p.device)
    n = p.numel()
    if n:
        biweight_fwd_kernel[(triton.cdiv(n, BLOCK),)](p, t, out, n, C=1.345, BLOCK=BLOCK)
    return out


def biweight_backward(g: torch.Tensor, pred: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    g, p, t = g.contiguous(), pred.contiguous(), target.contiguous()
    dp = torch.empty(p.shape, dtype=p.dtype, device=p.device)
    dt = torch.empty(p.shape, dtype=p.dtype, device=p.device)
    n = p.numel()
    if n:
        biweight_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, p, t, dp, dt, n, C=TUKEY_C, BLOCK=BLOCK)
    return dp, dt


class TukeyBiweight(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(pred, target)
        return biweight_forward(pred, target)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pred, target = ctx.saved_tensors
        return biweight_backward(g, pred, target)


def tukey_biweight(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return TukeyBiweight.apply(pred, target)


def reference(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    c = TUKEY_C
    r = pred - target
    w = 1.0 - (r / c) ** 2
    return torch.where(r.abs() <= c, c * c / 6.0 * (1.0 - w ** 3), torch.full_like(r, c * c / 6.0))


spec = kcheck.Spec(
    name="hx30_tukey_biweight_train",
    kernel=tukey_biweight,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=200, real=())},
    grad=True,
)

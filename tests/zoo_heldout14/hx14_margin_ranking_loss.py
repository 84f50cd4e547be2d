"""Margin ranking loss for training (pairwise learning-to-rank, reward-model preference pairs), reduction='none':
loss = max(0, -y * (x1 - x2) + margin), y = +1 where x1 should rank higher and -1 where x2 should.

Forward and backward are Triton kernels behind a torch.autograd.Function; both walk the flattened [M, N] tensors
with a flat 1-D grid of BLOCK-element programs (the launcher hands them contiguous tensors). Backward, with g the
upstream gradient and active = (-y * (x1 - x2) + margin >= 0):

    dx1 = -y * g * active,   dx2 = y * g * active

(the subgradient at the hinge is taken as torch's clamp_min does). Computed in fp32, stored in the input dtype.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def margin_rank_fwd_kernel(x1_ptr, x2_ptr, y_ptr, loss_ptr, numel, margin, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x1 = tl.load(x1_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x2_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = -y * (x1 - x2) + margin
    tl.store(loss_ptr + offs, tl.where(z < 0, 0.0, z).to(loss_ptr.dtype.element_ty), mask=mask)


@triton.jit
def margin_rank_bwd_kernel(g_ptr, x1_ptr, x2_ptr, y_ptr, dx1_ptr, dx2_ptr, numel, margin, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x1 = tl.load(x1_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x2_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = -y * (x1 - x2) + margin
    gy = tl.where(z >= 0, g * y, 0.0)
    tl.store(dx1_ptr + offs, (-gy).to(dx1_ptr.dtype.element_ty), mask=mask)
    tl.store(dx2_ptr + offs, gy.to(dx2_ptr.dtype.element_ty), mask=mask)


BLOCK = 1024


class MarginRankingLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor, margin: float) -> torch.Tensor:
        x1, x2, y = x1.contiguous(), x2.contiguous(), y.contiguous()
        loss = torch.empty_like(x1)
        n = x1.numel()
        if n:
            margin_rank_fwd_kernel[(triton.cdiv(n, BLOCK),)](x1, x2, y, loss, n, margin, BLOCK=BLOCK)
        ctx.save_for_backward(x1, x2, y)
        ctx.margin = margin
        return loss

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None, None]:
        x1, x2, y = ctx.saved_tensors
        dx1, dx2 = torch.empty_like(x1), torch.empty_like(x2)
        n = x1.numel()
        if n:
            margin_rank_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, x1, x2, y, dx1, dx2, n, ctx.margin, BLOCK=BLOCK)
        return dx1, dx2, None, None


def margin_ranking_loss(x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor, margin: float = 0.5) -> torch.Tensor:
    return MarginRankingLoss.apply(x1, x2, y, margin)


def reference(x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor, margin: float = 0.5) -> torch.Tensor:
    return (-y * (x1 - x2) + margin).clamp_min(0)


def _labels(ctx: kcheck.CaseContext) -> torch.Tensor:
    """+1 / -1 preference labels."""
    M, N = ctx.dims["M"], ctx.dims["N"]
    return (ctx.randint(0, 2, (M, N)) * 2 - 1).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx14_margin_ranking_loss",
    kernel=margin_ranking_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x1"), kcheck.Tensor("M", "N", name="x2"),
            kcheck.Custom(_labels, name="y", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    params={"margin": [0.5, 1.0]},
    grad=True,
)

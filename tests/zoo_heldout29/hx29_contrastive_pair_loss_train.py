"""Contrastive loss of siamese embeddings for training (Hadsell, Chopra & LeCun 2006), per pair:
L = y d^2 + (1 - y) max(0, m - d)^2 with d = ||a - b||, y = 1 for a similar pair, 0 for a dissimilar one, m the
margin. Triton forward and backward behind a torch.autograd.Function, checked in both passes.

Backward, with g the upstream gradient per pair and diff = a - b::

    dL/da = g * diff * (2 y - 2 (1 - y) max(0, m - d) / d),     dL/db = -dL/da

where a dissimilar pair with d = 0 (identical embeddings) gets no gradient from its hinge term (the direction of
a zero vector is undefined; torch's norm backward gives 0 there too). The hinge keeps a NaN distance NaN (a GPU's
max would drop it), so a pair with NaN features gets NaN gradients as autograd gives. Rows fit one block
(D <= 8192); d is saved by the forward in fp32. Row offsets are int64.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"
TILE = 4096  # elements per program


@triton.jit
def contrastive_fwd_kernel(a_ptr, b_ptr, y_ptr, loss_ptr, dist_ptr, M, D, margin, s_am, s_ad, s_bm, s_bd, s_y,
                           s_l, BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_D).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < D)[None, :]
    a = tl.load(a_ptr + rows[:, None] * s_am + cols[None, :] * s_ad, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rows[:, None] * s_bm + cols[None, :] * s_bd, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + rows * s_y, mask=row_mask, other=0.0).to(tl.float32)
    diff = a - b
    d2 = tl.sum(diff * diff, axis=1)
    d = tl.sqrt(d2)
    hinge = tl.maximum(margin - d, 0.0, propagate_nan=tl.PropagateNan.ALL)
    loss = y * d2 + (1.0 - y) * hinge * hinge
    tl.store(loss_ptr + rows * s_l, loss.to(loss_ptr.dtype.element_ty), mask=row_mask)
    tl.store(dist_ptr + rows, d, mask=row_mask)


@triton.jit
def contrastive_bwd_kernel(g_ptr, a_ptr, b_ptr, y_ptr, dist_ptr, da_ptr, db_ptr, M, D, margin, s_g, s_am, s_ad,
                           s_bm, s_bd, s_y, s_dam, s_dad, s_dbm, s_dbd, BLOCK_M: tl.constexpr,
                           BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_D).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < D)[None, :]
    a = tl.load(a_ptr + rows[:, None] * s_am + cols[None, :] * s_ad, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rows[:, None] * s_bm + cols[None, :] * s_bd, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows * s_g, mask=row_mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + rows * s_y, mask=row_mask, other=0.0).to(tl.float32)
    d = tl.load(dist_ptr + rows, mask=row_mask, other=1.0)
    hinge = tl.maximum(margin - d, 0.0, propagate_nan=tl.PropagateNan.ALL)
    inv_d = 1.0 / d
    coef = g * (2.0 * y - 2.0 * (1.0 - y) * hinge * inv_d)
    da = coef[:, None] * (a - b)
    tl.store(da_ptr + rows[:, None] * s_dam + cols[None, :] * s_dad, da.to(da_ptr.dtype.element_ty), mask=mask)
    tl.store(db_ptr + rows[:, None] * s_dbm + cols[None, :] * s_dbd, (-da).to(db_ptr.dtype.element_ty), mask=mask)


def _blocks(M: int, D: int) -> tuple[int, int, int]:
    block_d = triton.next_power_of_2(max(D, 1))
    block_m = max(1, min(TILE // block_d, triton.next_power_of_2(max(M, 1))))
    return block_m, block_d, triton.cdiv(M, block_m)


class ContrastiveLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, a: torch.Tensor, b: torch.Tensor, y: torch.Tensor, margin: float) -> torch.Tensor:
        M, D = a.shape
        loss = torch.empty((M,), dtype=a.dtype, device=a.device)
        dist = torch.empty((M,), dtype=torch.float32, device=a.device)
        if M:
            block_m, block_d, programs = _blocks(M, D)
            contrastive_fwd_kernel[(programs,)](a, b, y, loss, dist, M, D, margin, a.stride(0), a.stride(1),
                                                b.stride(0), b.stride(1), y.stride(0), loss.stride(0),
                                                BLOCK_M=block_m, BLOCK_D=block_d)
        ctx.save_for_backward(a, b, y, dist)
        ctx.margin = margin
        return loss

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None, None]:
        a, b, y, dist = ctx.saved_tensors
        M, D = a.shape
        da = torch.empty((M, D), dtype=a.dtype, device=a.device)
        db = torch.empty((M, D), dtype=b.dtype, device=b.device)
        if M and D:
            block_m, block_d, programs = _blocks(M, D)
            contrastive_bwd_kernel[(programs,)](g, a, b, y, dist, da, db, M, D, ctx.margin, g.stride(0),
                                                a.stride(0), a.stride(1), b.stride(0), b.stride(1), y.stride(0),
                                                da.stride(0), da.stride(1), db.stride(0), db.stride(1),
                                                BLOCK_M=block_m, BLOCK_D=block_d)
        return da, db, None, None


def contrastive_loss(a: torch.Tensor, b: torch.Tensor, y: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    return ContrastiveLoss.apply(a, b, y, margin)


def reference(a: torch.Tensor, b: torch.Tensor, y: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    d = torch.linalg.vector_norm(a - b, dim=-1)
    return y * ((a - b) ** 2).sum(-1) + (1 - y) * torch.relu(margin - d) ** 2


def pair_labels(ctx: kcheck.CaseContext) -> torch.Tensor:
    """1 for a similar pair, 0 for a dissimilar one, about half each."""
    return ctx.randint(0, 2, (ctx.dims["M"],)).to(ctx.dtype)


spec = kcheck.Spec(
    name="contrastive_pair_loss_train",
    kernel=contrastive_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="a"), kcheck.Tensor("M", "D", name="b"),
            kcheck.Custom(pair_labels, name="similar", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=96, real=()), "D": kcheck.Dim(nominal=64, max=8192, real=())},
    reduce=["D"],
    params={"margin": [1.0, 16.0]},
    grad=True,
)

"""Welsch (Leclerc) robust loss for training, summed over the last dimension: for residuals r = pred - target and
scale c,

    loss[m] = sum_n c^2 / 2 * (1 - exp(-(r[m, n] / c)^2))
    d loss / d pred = g[m] * r * exp(-(r / c)^2) = - d loss / d target

Forward: one program per BLOCK_M rows, the row walked in BLOCK_N chunks, fp32 sums. Backward: elementwise on
[BLOCK_M, BLOCK_N] tiles, the upstream gradient broadcast along each row. int64 offsets."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def welsch_fwd_kernel(p_ptr, t_ptr, out_ptr, M, N, c, s_pm, s_pn, s_tm, s_tn, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rmask = rows < M
    inv_c = 1.0 / c
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = rmask[:, None] & (cols < N)[None, :]
        p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
        u = (p - t) * inv_c
        acc += 1.0 - tl.exp(-u * u)
    loss = (0.5 * c * c) * tl.sum(acc, axis=1)
    tl.store(out_ptr + rows, loss.to(out_ptr.dtype.element_ty), mask=rmask)


@triton.jit
def welsch_bwd_kernel(g_ptr, p_ptr, t_ptr, dp_ptr, dt_ptr, M, N, c, s_g, s_pm, s_pn, s_tm, s_tn, s_dm, s_dn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    mask = rmask[:, None] & (cols < N)[None, :]
    g = tl.load(g_ptr + rows * s_g, mask=rmask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    r = p - t
    u = r / c
    d = g[:, None] * r * tl.exp(-u * u)
    off = rows[:, None] * s_dm + cols[None, :] * s_dn
    tl.store(dp_ptr + off, d.to(dp_ptr.dtype.element_ty), mask=mask)
    tl.store(dt_ptr + off, (-d).to(dt_ptr.dtype.element_ty), mask=mask)


def welsch_forward(pred: torch.Tensor, target: torch.Tensor, c: float) -> torch.Tensor:
    M, N = pred.shape
    out = torch.empty((M,), dtype=pred.dtype, device=pred.device)
    if M:
        welsch_fwd_kernel[(triton.cdiv(M, 8),)](pred, target, out, M, N, c, pred.stride(0), pred.stride(1),
                                                target.stride(0), target.stride(1), BLOCK_M=8, BLOCK_N=128)
    return out


def welsch_backward(g: torch.Tensor, pred: torch.Tensor, target: torch.Tensor,
                    c: float) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = pred.shape
    dp = torch.empty((M, N), dtype=pred.dtype, device=pred.device)
    dt = torch.empty((M, N), dtype=pred.dtype, device=pred.device)
    if M and N:
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 64))
        welsch_bwd_kernel[grid](g, pred, target, dp, dt, M, N, c, g.stride(0), pred.stride(0), pred.stride(1),
                                target.stride(0), target.stride(1), dp.stride(0), dp.stride(1),
                                BLOCK_M=16, BLOCK_N=64)
    return dp, dt


class WelschLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, pred: torch.Tensor, target: torch.Tensor, c: float = 2.9846) -> torch.Tensor:
        ctx.save_for_backward(pred, target)
        ctx.c = c
        return welsch_forward(pred, target, c)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        pred, target = ctx.saved_tensors
        dp, dt = welsch_backward(g, pred, target, ctx.c)
        return dp, dt, None


def welsch_loss(pred: torch.Tensor, target: torch.Tensor, c: float = 2.9846) -> torch.Tensor:
    return WelschLoss.apply(pred, target, c)


def reference(pred: torch.Tensor, target: torch.Tensor, c: float = 2.9846) -> torch.Tensor:
    u = (pred - target) / c
    return (0.5 * c * c * (1.0 - torch.exp(-u * u))).sum(-1)


spec = kcheck.Spec(
    name="hx30_welsch_loss_train_ok",
    kernel=welsch_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=300, real=())},
    reduce=["N"],
    grad=True,
    params={"c": [2.9846, 1.0]},
)

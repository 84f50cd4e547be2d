"""Expectile regression loss for training (econometrics / distributional RL): with residuals r = target - pred
over [M, N] and the expectile tau (a mode),

    loss[m] = (1/N) sum_n |tau - 1(r < 0)| r^2          (weight tau above the prediction, 1 - tau below)

Triton forward (a row reduction: BLOCK_M rows per program, the row in BLOCK_N chunks, fp32) and backward (2-D
tiles) behind a torch.autograd.Function; with g[m] the upstream gradient,

    d pred = -2 w r g / N,     d target = 2 w r g / N

The weight is continuous at r = 0 times r, so the gradient is 0 there from either side. int64 offsets, any strides.
A correct control.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def expectile_fwd_kernel(p_ptr, t_ptr, loss_ptr, M, N, tau, s_pm, s_pn, s_tm, s_tn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
        r = t - p
        w = tl.where(r < 0, 1.0 - tau, tau)
        acc += tl.where(mask, w * r * r, 0.0)
    loss = tl.sum(acc, axis=1) / N
    tl.store(loss_ptr + rows, loss.to(loss_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def expectile_bwd_kernel(g_ptr, p_ptr, t_ptr, dp_ptr, dt_ptr, M, N, tau, s_g, s_pm, s_pn, s_tm, s_tn, s_dm, s_dn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows * s_g, mask=row_mask, other=0.0).to(tl.float32)
    r = t - p
    w = tl.where(r < 0, 1.0 - tau, tau)
    d = 2.0 * w * r * (g / N)[:, None]
    offs = rows[:, None] * s_dm + cols[None, :] * s_dn
    tl.store(dt_ptr + offs, d.to(dt_ptr.dtype.element_ty), mask=mask)
    tl.store(dp_ptr + offs, (-d).to(dp_ptr.dtype.element_ty), mask=mask)


def _forward(pred: torch.Tensor, target: torch.Tensor, tau: float) -> torch.Tensor:
    M, N = pred.shape
    loss = torch.empty((M,), dtype=pred.dtype, device=pred.device)
    if M == 0:
        return loss
    block_n = min(256, triton.next_power_of_2(max(N, 1)))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M)))
    expectile_fwd_kernel[(triton.cdiv(M, block_m),)](pred, target, loss, M, N, tau, pred.stride(0), pred.stride(1),
                                                    target.stride(0), target.stride(1),
                                                    BLOCK_M=block_m, BLOCK_N=block_n)
    return loss


def _backward(g: torch.Tensor, pred: torch.Tensor, target: torch.Tensor,
              tau: float) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = pred.shape
    dp = torch.empty((M, N), dtype=pred.dtype, device=pred.device)
    dt = torch.empty((M, N), dtype=target.dtype, device=target.device)
    if M == 0 or N == 0:
        return dp, dt
    grid = (triton.cdiv(M, 16) * triton.cdiv(N, 64),)
    expectile_bwd_kernel[grid](g, pred, target, dp, dt, M, N, tau, g.stride(0), pred.stride(0), pred.stride(1),
                               target.stride(0), target.stride(1), dp.stride(0), dp.stride(1),
                               BLOCK_M=16, BLOCK_N=64)
    return dp, dt


class ExpectileLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, pred: torch.Tensor, target: torch.Tensor, tau: float) -> torch.Tensor:
        ctx.save_for_backward(pred, target)
        ctx.tau = tau
        return _forward(pred, target, tau)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        pred, target = ctx.saved_tensors
        dp, dt = _backward(g, pred, target, ctx.tau)
        return dp, dt, None


def expectile_loss(pred: torch.Tensor, target: torch.Tensor, tau: float = 0.9) -> torch.Tensor:
    return ExpectileLoss.apply(pred, target, tau)


def reference(pred: torch.Tensor, target: torch.Tensor, tau: float) -> torch.Tensor:
    r = target - pred
    w = torch.where(r < 0, 1.0 - tau, tau)
    return (w * r * r).mean(-1)


spec = kcheck.Spec(
    name="hx37_expectile_loss_train_ok",
    kernel=expectile_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=48, real=()), "N": kcheck.Dim(nominal=300, real=())},
    params={"tau": [0.9, 0.5]},
    reduce=["N"],
    grad=True,
)

"""Robotics, for training: soft collision cost of sampled robot states against K obstacles, a smooth minimum of
the clearances d[b, k],

    cost[b] = -TAU * log(sum_k exp(-d[b, k] / TAU)),    d cost / d d[b, k] = softmax_k(-d[b, :] / TAU),

so a planner's gradient pushes away from the nearest obstacles. Forward: one program per BLOCK_B states, the
log-sum-exp stabilised by the row maximum (a shift that is +-inf is replaced by 0, as torch.logsumexp does), in
fp32; it saves lse = -cost / TAU per row. Backward: dd = g[b] * exp(-d / TAU - lse[b]). K fits one block."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"

TAU = 0.25


@triton.jit
def soft_cost_fwd_kernel(d_ptr, cost_ptr, lse_ptr, B, K, s_db, s_dk, TAU: tl.constexpr, BLOCK_B: tl.constexpr,
                         BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    cols = tl.arange(0, BLOCK_K).to(tl.int64)
    row_mask = rows < B
    mask = row_mask[:, None] & (cols < K)[None, :]
    d = tl.load(d_ptr + rows[:, None] * s_db + cols[None, :] * s_dk, mask=mask, other=float("inf")).to(tl.float32)
    z = -d / TAU
    m = tl.max(z, axis=1)
    m = tl.where(tl.abs(m) == float("inf"), 0.0, m)
    lse = tl.log(tl.sum(tl.exp(z), axis=1))
    tl.store(lse_ptr + rows, lse, mask=row_mask)
    tl.store(cost_ptr + rows, (-TAU * lse).to(cost_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def soft_cost_bwd_kernel(g_ptr, d_ptr, lse_ptr, dd_ptr, B, K, s_g, s_db, s_dk, s_ob, s_ok, TAU: tl.constexpr,
                         BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    cols = tl.arange(0, BLOCK_K).to(tl.int64)
    row_mask = rows < B
    mask = row_mask[:, None] & (cols < K)[None, :]
    d = tl.load(d_ptr + rows[:, None] * s_db + cols[None, :] * s_dk, mask=mask, other=float("inf")).to(tl.float32)
    g = tl.load(g_ptr + rows * s_g, mask=row_mask, other=0.0).to(tl.float32)
    lse = tl.load(lse_ptr + rows, mask=row_mask, other=0.0)
    p = tl.exp(-d / TAU - lse[:, None])
    tl.store(dd_ptr + rows[:, None] * s_ob + cols[None, :] * s_ok, (g[:, None] * p).to(dd_ptr.dtype.element_ty),
             mask=mask)


def _blocks(B: int, K: int) -> tuple[int, int, int]:
    block_k = triton.next_power_of_2(max(K, 1))
    block_b = max(1, min(2048 // block_k, triton.next_power_of_2(max(B, 1))))
    return block_b, block_k, triton.cdiv(B, block_b)


class SoftCollisionCost(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, d: torch.Tensor) -> torch.Tensor:
        B, K = d.shape
        cost = torch.empty((B,), dtype=d.dtype, device=d.device)
        lse = torch.empty((B,), dtype=torch.float32, device=d.device)
        if B:
            block_b, block_k, programs = _blocks(B, K)
            soft_cost_fwd_kernel[(programs,)](d, cost, lse, B, K, d.stride(0), d.stride(1), TAU=TAU,
                                              BLOCK_B=block_b, BLOCK_K=block_k)
        ctx.save_for_backward(d, lse)
        return cost

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        d, lse = ctx.saved_tensors
        B, K = d.shape
        dd = torch.empty((B, K), dtype=d.dtype, device=d.device)
        if B:
            block_b, block_k, programs = _blocks(B, K)
            soft_cost_bwd_kernel[(programs,)](g, d, lse, dd, B, K, g.stride(0), d.stride(0), d.stride(1),
                                              dd.stride(0), dd.stride(1), TAU=TAU, BLOCK_B=block_b, BLOCK_K=block_k)
        return dd


def soft_collision_cost(d: torch.Tensor) -> torch.Tensor:
    return SoftCollisionCost.apply(d)


def reference(d: torch.Tensor) -> torch.Tensor:
    return -TAU * torch.logsumexp(-d / TAU, dim=-1)


spec = kcheck.Spec(
    name="hx36_soft_collision_cost_train",
    kernel=soft_collision_cost,
    reference=reference,
    inputs=[kcheck.Tensor("B", "K", name="clearance")],
    dims={"B": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=24, min=1, max=512, real=())},
    reduce=["K"],
    grad=True,
)

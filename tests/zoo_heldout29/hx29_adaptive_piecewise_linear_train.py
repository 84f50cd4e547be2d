"""Adaptive piecewise linear (APL) units for training (Agostinelli et al. 2015), one hinge per feature:
y = max(0, x) + a * max(0, b - x), with a learned slope a[n] and hinge position b[n] per feature. Triton forward and
backward behind a torch.autograd.Function, checked in both passes.

Backward, with g the upstream gradient and h = [not (b - x <= 0)] (the kinks take the one-sided slope torch's relu
takes, and a NaN passes its gradient through as torch's relu does)::

    dx = g * [not x <= 0] - g * a * h
    da = sum over rows of g * max(0, b - x)
    db = sum over rows of g * a * h

where each masked term is selected, not multiplied by its mask, as autograd does.

x is [rows, features]. Each program takes BLOCK_M rows and walks the features BLOCK_N at a time; the backward
writes its rows' partial da and db (fp32) to its own row of [programs, N] buffers, summed afterwards (no atomics:
deterministic). Row offsets are int64.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"
BLOCK_M = 16
BLOCK_N = 64


@triton.jit
def apl_fwd_kernel(x_ptr, a_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_a, s_b, s_ym, s_yn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        a = tl.load(a_ptr + cols * s_a, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        b = tl.load(b_ptr + cols * s_b, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        y = tl.where(x <= 0.0, 0.0, x) + a * tl.where(b - x <= 0.0, 0.0, b - x)  # relu that keeps NaN
        tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def apl_bwd_kernel(g_ptr, x_ptr, a_ptr, b_ptr, dx_ptr, da_part_ptr, db_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn,
                   s_a, s_b, s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        a = tl.load(a_ptr + cols * s_a, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        b = tl.load(b_ptr + cols * s_b, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        z = b - x
        ga = tl.where(z <= 0.0, 0.0, g * a)  # selected, not multiplied by the mask: an infinite slope stays out
        dx = tl.where(x <= 0.0, 0.0, g) - ga
        tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        da = tl.sum(tl.where(mask, g * tl.where(z <= 0.0, 0.0, z), 0.0), axis=0)
        db = tl.sum(tl.where(mask, ga, 0.0), axis=0)
        tl.store(da_part_ptr + pid * N + cols, da, mask=col_mask)
        tl.store(db_part_ptr + pid * N + cols, db, mask=col_mask)


def apl_forward(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        apl_fwd_kernel[(triton.cdiv(M, BLOCK_M),)](x, a, b, y, M, N, N, 1, a.stride(0),
                                                   b.stride(0), y.stride(0), y.stride(1),
                                                   BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def apl_backward(g: torch.Tensor, x: torch.Tensor, a: torch.Tensor,
                 b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(a), torch.zeros_like(b)
    programs = triton.cdiv(M, BLOCK_M)
    da_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
    db_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
    apl_bwd_kernel[(programs,)](g, x, a, b, dx, da_part, db_part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                x.stride(1), a.stride(0), b.stride(0), dx.stride(0), dx.stride(1),
                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, da_part.sum(0).to(a.dtype), db_part.sum(0).to(b.dtype)


class APLFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, a, b)
        return apl_forward(x, a, b)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x, a, b = ctx.saved_tensors
        return apl_backward(g, x, a, b)


def apl(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return APLFunction.apply(x, a, b)


def reference(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.relu(x) + a * torch.relu(b - x)


spec = kcheck.Spec(
    name="adaptive_piecewise_linear_train",
    kernel=apl,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="slope"), kcheck.Tensor("N", name="hinge")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=200, real=())},
    grad=True,
)

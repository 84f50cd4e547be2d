"""Squared distance of each embedding to a learned prototype (prototype / centre-loss heads), for training:
d[m] = sum_n (x[m, n] - p[n])^2, a Triton forward and backward behind a torch.autograd.Function, checked in both
passes with ``Spec(grad=True)``.

Backward, with g[m] the upstream gradient::

    dx[m, n] = 2 g[m] (x[m, n] - p[n])
    dp[n]    = -2 sum over m of g[m] (x[m, n] - p[n])

Rows fit one block (N <= 8192), BLOCK_M rows per program; each backward program adds its rows' contribution to dp
atomically into an fp32 buffer (zeroed first). int64 row offsets, strides honoured."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"
TILE = 2048


@triton.jit
def sqdist_fwd_kernel(x_ptr, p_ptr, d_ptr, M, N, s_xm, s_xn, s_p, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    col_mask = cols < N
    mask = row_mask[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + cols * s_p, mask=col_mask, other=0.0).to(tl.float32)
    diff = tl.where(mask, x - p[None, :], 0.0)
    tl.store(d_ptr + rows, tl.sum(diff * diff, axis=1).to(d_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def sqdist_bwd_kernel(g_ptr, x_ptr, p_ptr, dx_ptr, dp_ptr, M, N, s_g, s_xm, s_xn, s_p, s_dm, s_dn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    col_mask = cols < N
    mask = row_mask[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows * s_g, mask=row_mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + cols * s_p, mask=col_mask, other=0.0).to(tl.float32)
    gd = tl.where(mask, 2.0 * g[:, None] * (x - p[None, :]), 0.0)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, gd.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dp_ptr + cols, tl.load(dp_ptr + cols, mask=col_mask) - tl.sum(gd, axis=0), mask=col_mask)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


def sqdist_forward(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    d = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return d
    block_m, block_n, programs = _blocks(M, N)
    sqdist_fwd_kernel[(programs,)](x, p, d, M, N, x.stride(0), x.stride(1), p.stride(0),
                                   BLOCK_M=block_m, BLOCK_N=block_n)
    return d


def sqdist_backward(g: torch.Tensor, x: torch.Tensor, p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    dp = torch.zeros((N,), dtype=torch.float32, device=x.device)
    if M and N:
        block_m, block_n, programs = _blocks(M, N)
        sqdist_bwd_kernel[(programs,)](g, x, p, dx, dp, M, N, g.stride(0), x.stride(0), x.stride(1), p.stride(0),
                                       dx.stride(0), dx.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dp.to(p.dtype)


class PrototypeSqDist(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, p)
        return sqdist_forward(x, p)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, p = ctx.saved_tensors
        return sqdist_backward(g, x, p)


def prototype_sqdist(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    return PrototypeSqDist.apply(x, p)


def reference(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    return ((x - p) ** 2).sum(-1)


spec = kcheck.Spec(
    name="hx31_prototype_sqdist_train",
    kernel=prototype_sqdist,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="prototype")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=64, max=8192, real=())},
    reduce=["N"],
    grad=True,
)

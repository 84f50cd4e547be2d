"""Nonlinear dynamics, for training: the restoring force of a bank of Duffing oscillators with learned
stiffnesses, f = k * x + beta * x^3 (one linear stiffness k and cubic stiffness beta per oscillator, columns; the
batch of displacements in rows). Backward:

    dx = g * (k + 3 * beta * x^2),    dk = sum over rows of g * x,    dbeta = sum over rows of g * x^3

Forward: [BLOCK_M, BLOCK_N] tiles. Backward: each program of BLOCK_M rows writes dx and its partial dk and dbeta
(fp32) to its own row of [programs, N] buffers, summed afterwards (deterministic). fp32 math, strides honoured."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def duffing_fwd_kernel(x_ptr, k_ptr, b_ptr, f_ptr, M, N, s_xm, s_xn, s_k, s_b, s_fm, s_fn, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    k = tl.load(k_ptr + cols * s_k, mask=cols < N, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=cols < N, other=0.0).to(tl.float32)
    f = k[None, :] * x + b[None, :] * (x * x * x)
    tl.store(f_ptr + rows[:, None] * s_fm + cols[None, :] * s_fn, f.to(f_ptr.dtype.element_ty), mask=mask)


@triton.jit
def duffing_bwd_kernel(g_ptr, x_ptr, k_ptr, b_ptr, dx_ptr, dk_ptr, db_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_k, s_b,
                       s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    k = tl.load(k_ptr + cols * s_k, mask=col_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=col_mask, other=0.0).to(tl.float32)
    dx = g * (k[None, :] + 3.0 * b[None, :] * x * x)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    gx = tl.where(mask, g * x, 0.0)
    tl.store(dk_ptr + pid_m * N + cols, tl.sum(gx, axis=0), mask=col_mask)
    tl.store(db_ptr + pid_m * N + cols, tl.sum(gx * x * x, axis=0), mask=col_mask)


def _bwd_blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class DuffingForce(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, k: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        f = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
            duffing_fwd_kernel[grid](x, k, beta, f, M, N, x.stride(0), x.stride(1), k.stride(0), beta.stride(0),
                                     f.stride(0), f.stride(1), BLOCK_M=32, BLOCK_N=32)
        ctx.save_for_backward(x, k, beta)
        return f

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x, k, beta = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(k), torch.zeros_like(beta)
        block_m, block_n, programs = _bwd_blocks(M, N)
        dk = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        db = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        duffing_bwd_kernel[(programs,)](g, x, k, beta, dx, dk, db, M, N, g.stride(0), g.stride(1), x.stride(0),
                                        x.stride(1), k.stride(0), beta.stride(0), dx.stride(0), dx.stride(1),
                                        BLOCK_M=block_m, BLOCK_N=block_n)
        return dx, dk.sum(0).to(k.dtype), db.sum(0).to(beta.dtype)


def duffing_force(x: torch.Tensor, k: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return DuffingForce.apply(x, k, beta)


def reference(x: torch.Tensor, k: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return k * x + beta * x ** 3


spec = kcheck.Spec(
    name="hx36_duffing_force_train_ok",
    kernel=duffing_force,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="k"),
            kcheck.Tensor("N", pattern="randn", name="beta")],
    dims={"M": kcheck.Dim(nominal=200, real=()), "N": kcheck.Dim(nominal=48, max=2048, real=())},
    grad=True,
)

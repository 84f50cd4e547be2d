"""Cauchy activation with learned per-feature shape, for training (a rational, bounded, odd activation):

    y = alpha * x / (1 + (beta * x)^2).

With q = 1 + beta^2 x^2 and g the upstream gradient, the backward is

    dx = g * alpha * (1 - beta^2 x^2) / q^2,
    dalpha[n] = sum over rows of g * x / q,
    dbeta[n]  = sum over rows of -2 g * alpha * beta * x^3 / q^2.

Forward and backward are Triton kernels over [BLOCK_M, BLOCK_N] tiles; each backward program writes its rows'
partial parameter gradients to its own row of [programs, N] fp32 buffers, summed afterwards (deterministic, no
atomics).
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def cauchy_fwd_kernel(x_ptr, a_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_a, s_b, s_ym, s_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    alpha = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)[None, :]
    beta = tl.load(b_ptr + cols * s_b, mask=cmask, other=0.0).to(tl.float32)[None, :]
    bx = beta * x
    y = alpha * x / (1.0 + bx * bx)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def cauchy_bwd_kernel(g_ptr, x_ptr, a_ptr, b_ptr, dx_ptr, da_part_ptr, db_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn,
                      s_a, s_b, s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    alpha = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)[None, :]
    beta = tl.load(b_ptr + cols * s_b, mask=cmask, other=0.0).to(tl.float32)[None, :]
    bx = beta * x
    q = 1.0 + bx * bx
    inv_q = 1.0 / q
    dx = g * alpha * (1.0 - bx * bx) * inv_q * inv_q
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    da = tl.sum(tl.where(mask, g * x * inv_q, 0.0), axis=0)
    db = tl.sum(tl.where(mask, -2.0 * g * alpha * bx * x * x * inv_q * inv_q, 0.0), axis=0)
    tl.store(da_part_ptr + pid_m * N + cols, da, mask=cmask)
    tl.store(db_part_ptr + pid_m * N + cols, db, mask=cmask)


class CauchyActivation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor, BLOCK_M: int,
                BLOCK_N: int) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        ctx.save_for_backward(x, alpha, beta)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        if M and N:
            grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
            cauchy_fwd_kernel[grid](x, alpha, beta, y, M, N, x.stride(0), x.stride(1), alpha.stride(0),
                                    beta.stride(0), y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor):
        x, alpha, beta = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(alpha), torch.zeros_like(beta), None, None
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        da_part = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
        db_part = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
        cauchy_bwd_kernel[grid](g, x, alpha, beta, dx, da_part, db_part, M, N, g.stride(0), g.stride(1),
                                x.stride(0), x.stride(1), alpha.stride(0), beta.stride(0), dx.stride(0), dx.stride(1),
                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, da_part.sum(0).to(alpha.dtype), db_part.sum(0).to(beta.dtype), None, None


def cauchy_activation(x: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor, BLOCK_M: int = 32,
                      BLOCK_N: int = 64) -> torch.Tensor:
    return CauchyActivation.apply(x, alpha, beta, BLOCK_M, BLOCK_N)


def reference(x: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return alpha * x / (1.0 + (beta * x) ** 2)


spec = kcheck.Spec(
    name="cauchy_activation_train",
    kernel=cauchy_activation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="alpha"),
            kcheck.Tensor("N", pattern="randn", name="beta")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=160, real=(), large=False)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 8, "BLOCK_N": 128}],
    grad=True,
)

"""Softplus with a learned per-feature sharpness (ML layer), for training: Triton forward and backward.

y[m, n] = softplus(beta[n] * x[m, n]) / beta[n], with softplus(z) = log(1 + exp(z)) evaluated stably as
max(z, 0) + log(1 + exp(-|z|)). With s = sigmoid(beta * x), the backward gives::

    dx    = g * s
    dbeta = sum over rows of g * (x * s - y) / beta

x is [M, N], beta [N]. Forward and backward work on 2-D tiles in fp32; the backward recomputes y, and each row block
writes its partial dbeta to its own row of an fp32 [row blocks, N] buffer, summed afterwards (deterministic).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def psoftplus_fwd_kernel(x_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_b, s_ym, s_yn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    beta = tl.load(b_ptr + cols * s_b, mask=col_mask, other=1.0).to(tl.float32)
    bx = x * beta[None, :]
    sp = tl.log(1.0 + tl.exp(bx))
    y = sp / beta[None, :]
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def psoftplus_bwd_kernel(g_ptr, x_ptr, b_ptr, dx_ptr, dpart_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_b, s_dm, s_dn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    beta = tl.load(b_ptr + cols * s_b, mask=col_mask, other=1.0).to(tl.float32)
    bx = x * beta[None, :]
    e = tl.exp(-tl.abs(bx))
    s = tl.where(bx >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    y = (tl.maximum(bx, 0.0) + tl.log(1.0 + e)) / beta[None, :]
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, (g * s).to(dx_ptr.dtype.element_ty), mask=mask)
    db = tl.where(mask, g * (x * s - y) / beta[None, :], 0.0)
    tl.store(dpart_ptr + pid_m * N + cols, tl.sum(db, axis=0), mask=col_mask)


def _grid(M: int, N: int, block_m: int, block_n: int) -> tuple[int, int]:
    return triton.cdiv(M, block_m), triton.cdiv(N, block_n)


def psoftplus_forward(x: torch.Tensor, beta: torch.Tensor, block_m: int = 16, block_n: int = 128) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        psoftplus_fwd_kernel[_grid(M, N, block_m, block_n)](x, beta, y, M, N, x.stride(0), x.stride(1),
                                                            beta.stride(0), y.stride(0), y.stride(1),
                                                            BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def psoftplus_backward(g: torch.Tensor, x: torch.Tensor, beta: torch.Tensor, block_m: int = 16,
                       block_n: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(beta)
    grid = _grid(M, N, block_m, block_n)
    dpart = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
    psoftplus_bwd_kernel[grid](g, x, beta, dx, dpart, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                               beta.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dpart.sum(0).to(beta.dtype)


class ParametricSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, beta)
        return psoftplus_forward(x, beta)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, beta = ctx.saved_tensors
        return psoftplus_backward(g, x, beta)


def parametric_softplus(x: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return ParametricSoftplus.apply(x, beta)


def reference(x: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    bx = x * beta
    return torch.logaddexp(bx, torch.zeros_like(bx)) / beta


spec = kcheck.Spec(
    name="hx40_parametric_softplus_train",
    kernel=parametric_softplus,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="beta")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

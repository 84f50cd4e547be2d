"""Ricker ("Mexican hat") wavelet activation with a learned per-feature scale, for training::

    y = psi(u),   u = s[n] * x[m, n],   psi(u) = (1 - u^2) exp(-u^2 / 2)

Backward, with g the upstream gradient and psi'(u) = u (u^2 - 3) exp(-u^2 / 2)::

    dx[m, n] = g * s[n] * psi'(u)
    ds[n]    = sum over rows m of g * x[m, n] * psi'(u)

Forward and backward are Triton kernels over [BLOCK_M, BLOCK_N] tiles, fp32 arithmetic; the backward writes each
row-block's partial ds to its own row of an fp32 [programs, N] buffer, summed afterwards (deterministic).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

BLOCK_M = 16
BLOCK_N = 64


@triton.jit
def ricker_fwd_kernel(x_ptr, s_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_s, stride_ym, stride_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols * stride_s, mask=col_mask, other=0.0).to(tl.float32)
    u = x * s[None, :]
    u2 = u * u
    y = (1.0 - u2) * tl.exp(-0.5 * u2)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def ricker_bwd_kernel(g_ptr, x_ptr, s_ptr, dx_ptr, ds_part_ptr, M, N, stride_gm, stride_gn, stride_xm, stride_xn,
                      stride_s, stride_dm, stride_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * stride_gm + cols[None, :] * stride_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols * stride_s, mask=col_mask, other=0.0).to(tl.float32)
    u = x * s[None, :]
    u2 = u * u
    dpsi = u * (u2 - 1.0) * tl.exp(-0.5 * u2)
    gd = g * dpsi
    tl.store(dx_ptr + rows[:, None] * stride_dm + cols[None, :] * stride_dn,
             (gd * s[None, :]).to(dx_ptr.dtype.element_ty), mask=mask)
    ds = tl.sum(tl.where(mask, gd * x, 0.0), axis=0)
    tl.store(ds_part_ptr + pid_m * N + cols, ds, mask=col_mask)


def ricker_forward(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        ricker_fwd_kernel[grid](x, s, y, M, N, x.stride(0), x.stride(1), s.stride(0), y.stride(0), y.stride(1),
                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def ricker_backward(g: torch.Tensor, x: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(s)
    programs = triton.cdiv(M, BLOCK_M)
    ds_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
    ricker_bwd_kernel[(programs, triton.cdiv(N, BLOCK_N))](
        g, x, s, dx, ds_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1), s.stride(0), dx.stride(0),
        dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, ds_part.sum(0).to(s.dtype)


class RickerFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, s)
        return ricker_forward(x, s)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, s = ctx.saved_tensors
        return ricker_backward(g, x, s)


def ricker_wavelet(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    return RickerFunction.apply(x, s)


def reference(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    u2 = (x * s).pow(2)
    return (1 - u2) * torch.exp(-0.5 * u2)


spec = kcheck.Spec(
    name="ricker_wavelet_train",
    kernel=ricker_wavelet,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="scale")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=128, real=())},
    grad=True,
)

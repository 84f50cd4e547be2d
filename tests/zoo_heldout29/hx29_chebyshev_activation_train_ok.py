"""Learnable Chebyshev activations for training (KAN-style per-feature basis expansion): with t = tanh(x) squashing
each input into [-1, 1], y = sum_{k=0..3} c[n, k] T_k(t), T_0 = 1, T_1 = t, T_2 = 2t^2 - 1, T_3 = 4t^3 - 3t, one
set of four coefficients per feature n. Triton forward and backward behind a torch.autograd.Function, checked in
both passes.

Backward, with g the upstream gradient::

    dx = g * (c1 + 4 c2 t + c3 (12 t^2 - 3)) * (1 - t^2)
    dc[n, k] = sum over rows of g * T_k(t)

tanh is formed from e = exp(-2|x|) as sign(x) (1 - e) / (1 + e), and 1 - t^2 as 4e / (1 + e)^2 (no cancellation
near saturation). Each program takes BLOCK_M rows and walks the features BLOCK_N at a time; the backward writes its
rows' partial coefficient gradients (fp32) to its own slice of a [programs, N, 4] buffer, summed afterwards
(deterministic). Row offsets are int64.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
BLOCK_M = 16
BLOCK_N = 64


@triton.jit
def _tanh_and_slope(x):
    e = tl.exp(-2.0 * tl.abs(x))
    mag = (1.0 - e) / (1.0 + e)
    t = tl.where(x < 0.0, -mag, mag)
    return t, 4.0 * e / ((1.0 + e) * (1.0 + e))


@triton.jit
def cheb_fwd_kernel(x_ptr, c_ptr, y_ptr, M, N, s_xm, s_xn, s_cn, s_ck, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        c0 = tl.load(c_ptr + cols * s_cn, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        c1 = tl.load(c_ptr + cols * s_cn + s_ck, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        c2 = tl.load(c_ptr + cols * s_cn + 2 * s_ck, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        c3 = tl.load(c_ptr + cols * s_cn + 3 * s_ck, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        t, _ = _tanh_and_slope(x)
        y = c0 + c1 * t + c2 * (2.0 * t * t - 1.0) + c3 * ((4.0 * t * t - 3.0) * t)
        tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def cheb_bwd_kernel(g_ptr, x_ptr, c_ptr, dx_ptr, dc_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_cn, s_ck, s_dm, s_dn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    part = dc_part_ptr + pid * N * 4
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        c1 = tl.load(c_ptr + cols * s_cn + s_ck, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        c2 = tl.load(c_ptr + cols * s_cn + 2 * s_ck, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        c3 = tl.load(c_ptr + cols * s_cn + 3 * s_ck, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        t, slope = _tanh_and_slope(x)
        dydt = c1 + 4.0 * c2 * t + c3 * (12.0 * t * t - 3.0)
        dx = g * dydt * slope
        tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        g = tl.where(mask, g, 0.0)
        tl.store(part + cols * 4, tl.sum(g, axis=0), mask=col_mask)
        tl.store(part + cols * 4 + 1, tl.sum(g * t, axis=0), mask=col_mask)
        tl.store(part + cols * 4 + 2, tl.sum(g * (2.0 * t * t - 1.0), axis=0), mask=col_mask)
        tl.store(part + cols * 4 + 3, tl.sum(g * ((4.0 * t * t - 3.0) * t), axis=0), mask=col_mask)


class ChebyshevActivation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, coef: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            cheb_fwd_kernel[(triton.cdiv(M, BLOCK_M),)](x, coef, y, M, N, x.stride(0), x.stride(1), coef.stride(0),
                                                        coef.stride(1), y.stride(0), y.stride(1),
                                                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, coef)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, coef = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(coef)
        programs = triton.cdiv(M, BLOCK_M)
        dc_part = torch.empty((programs, N, 4), dtype=torch.float32, device=x.device)
        cheb_bwd_kernel[(programs,)](g, x, coef, dx, dc_part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                     x.stride(1), coef.stride(0), coef.stride(1), dx.stride(0), dx.stride(1),
                                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dc_part.sum(0).to(coef.dtype)


def chebyshev_activation(x: torch.Tensor, coef: torch.Tensor) -> torch.Tensor:
    return ChebyshevActivation.apply(x, coef)


def reference(x: torch.Tensor, coef: torch.Tensor) -> torch.Tensor:
    t = torch.tanh(x)
    return coef[:, 0] + coef[:, 1] * t + coef[:, 2] * (2 * t * t - 1) + coef[:, 3] * ((4 * t * t - 3) * t)


spec = kcheck.Spec(
    name="chebyshev_activation_train_ok",
    kernel=chebyshev_activation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", 4, name="coef", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=160, real=())},
    grad=True,
)

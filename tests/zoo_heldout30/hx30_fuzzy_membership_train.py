"""Gaussian fuzzy membership layer (ANFIS / neuro-fuzzy systems) for training: each feature n has a learned centre
c[n] and a learned log-width s[n] (sigma = exp(s)):

    z = (x - c) / sigma,   mu = exp(-z^2 / 2)

Backward, with g the upstream gradient:

    dx = -g * mu * z / sigma,   dc = sum over rows of g * mu * z / sigma,   ds = sum over rows of g * mu * z^2

Forward and backward are Triton kernels on [BLOCK_M, BLOCK_N] tiles (fp32 arithmetic, int64 offsets); each backward
program sums its rows' parameter gradients and adds them into fp32 [N] buffers with atomics."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def membership_fwd_kernel(x_ptr, c_ptr, s_ptr, mu_ptr, M, N, s_xm, s_xn, s_c, s_s, s_mm, s_mn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(c_ptr + cols * s_c, mask=cmask, other=0.0).to(tl.float32)
    inv_sigma = tl.exp(-tl.load(s_ptr + cols * s_s, mask=cmask, other=0.0).to(tl.float32))
    z = (x - c[None, :]) * inv_sigma[None, :]
    mu = tl.exp(-0.5 * z * z)
    tl.store(mu_ptr + rows[:, None] * s_mm + cols[None, :] * s_mn, mu.to(mu_ptr.dtype.element_ty), mask=mask)


@triton.jit
def membership_bwd_kernel(g_ptr, x_ptr, c_ptr, s_ptr, dx_ptr, dc_ptr, ds_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_c,
                          s_s, s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(c_ptr + cols * s_c, mask=cmask, other=0.0).to(tl.float32)
    inv_sigma = tl.exp(-tl.load(s_ptr + cols * s_s, mask=cmask, other=0.0).to(tl.float32))
    z = (x - c[None, :]) * inv_sigma[None, :]
    gmu = g * tl.exp(-0.5 * z * z)
    t = gmu * z * inv_sigma[None, :]
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, (-t).to(dx_ptr.dtype.element_ty), mask=mask)
    dc = tl.sum(tl.where(mask, t, 0.0), axis=0)
    ds = tl.sum(tl.where(mask, gmu * z * z, 0.0), axis=0)
    tl.store(dc_ptr + cols, tl.load(dc_ptr + cols, mask=cmask) + dc, mask=cmask)
    tl.atomic_add(ds_ptr + cols, ds, mask=cmask)


BLOCK_M, BLOCK_N = 16, 64


def membership_forward(x: torch.Tensor, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    mu = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        membership_fwd_kernel[grid](x, c, s, mu, M, N, x.stride(0), x.stride(1), c.stride(0), s.stride(0),
                                    mu.stride(0), mu.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return mu


def membership_backward(g: torch.Tensor, x: torch.Tensor, c: torch.Tensor,
                        s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    dc = torch.zeros((N,), dtype=torch.float32, device=x.device)
    ds = torch.zeros((N,), dtype=torch.float32, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        membership_bwd_kernel[grid](g, x, c, s, dx, dc, ds, M, N, g.stride(0), g.stride(1), x.stride(0),
                                    x.stride(1), c.stride(0), s.stride(0), dx.stride(0), dx.stride(1),
                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, dc.to(c.dtype), ds.to(s.dtype)


class GaussianMembership(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, c, s)
        return membership_forward(x, c, s)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x, c, s = ctx.saved_tensors
        return membership_backward(g, x, c, s)


def gaussian_membership(x: torch.Tensor, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    return GaussianMembership.apply(x, c, s)


def reference(x: torch.Tensor, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    z = (x - c) * torch.exp(-s)
    return torch.exp(-0.5 * z * z)


spec = kcheck.Spec(
    name="hx30_fuzzy_membership_train",
    kernel=gaussian_membership,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="centre"),
            kcheck.Tensor("N", pattern="randn", name="log_width")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=160, real=())},
    grad=True,
)

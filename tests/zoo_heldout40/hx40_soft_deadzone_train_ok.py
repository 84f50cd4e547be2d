"""Smooth dead-zone compensation with a learned width per channel (control / ML layer), for training.

y[m, n] = x - t tanh(x / t) for inputs x [M, N] and the [N] widths t: about x^3 / (3 t^2) inside the dead zone
(|x| << |t|), x - t sign(x) outside it. With z = x / t and w = z - tanh(z) (so y = t w), the backward is::

    dx = g * tanh(z)^2
    dt = sum over rows of g * (w - z tanh(z)^2)       (y is homogeneous of degree 1 in (x, t))

w is evaluated without cancellation: an odd Taylor series of z - tanh(z) where |z| < 0.25, z - tanh(z) with
tanh(z) = sign(z) (1 - e) / (1 + e), e = exp(-2|z|), elsewhere. Triton forward and backward on 2-D tiles in fp32;
each row block of the backward writes its partial dt to its own row of an fp32 buffer, summed afterwards.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def _z_minus_tanh(z):
    """(w, tanh z) with w = z - tanh(z), accurate for small |z|."""
    z2 = z * z
    series = z * z2 * (1.0 / 3.0 - z2 * (2.0 / 15.0 - z2 * (17.0 / 315.0 - z2 * (62.0 / 2835.0 - z2 * (
        1382.0 / 155925.0)))))
    e = tl.exp(-2.0 * tl.abs(z))
    a = (1.0 - e) / (1.0 + e)
    th_big = tl.where(z >= 0.0, a, -a)
    small = tl.abs(z) < 0.25
    w = tl.where(small, series, z - th_big)
    th = tl.where(small, z - series, th_big)
    return w, th


@triton.jit
def deadzone_fwd_kernel(x_ptr, t_ptr, y_ptr, M, N, s_xm, s_xn, s_t, s_ym, s_yn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + cols * s_t, mask=col_mask, other=1.0).to(tl.float32)
    w, th = _z_minus_tanh(x / t[None, :])
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, (t[None, :] * w).to(y_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def deadzone_bwd_kernel(g_ptr, x_ptr, t_ptr, dx_ptr, dpart_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_t, s_dm, s_dn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + cols * s_t, mask=col_mask, other=1.0).to(tl.float32)
    z = x / t[None, :]
    w, th = _z_minus_tanh(z)
    th2 = th * th
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, (g * th2).to(dx_ptr.dtype.element_ty), mask=mask)
    dt = tl.where(mask, g * (w - z * th2), 0.0)
    tl.store(dpart_ptr + pid_m * N + cols, tl.sum(dt, axis=0), mask=col_mask)


def _grid(M: int, N: int, block_m: int, block_n: int) -> tuple[int, int]:
    return triton.cdiv(M, block_m), triton.cdiv(N, block_n)


def deadzone_forward(x: torch.Tensor, t: torch.Tensor, block_m: int = 16, block_n: int = 64) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        deadzone_fwd_kernel[_grid(M, N, block_m, block_n)](x, t, y, M, N, x.stride(0), x.stride(1), t.stride(0),
                                                           y.stride(0), y.stride(1), BLOCK_M=block_m,
                                                           BLOCK_N=block_n)
    return y


def deadzone_backward(g: torch.Tensor, x: torch.Tensor, t: torch.Tensor, block_m: int = 16,
                      block_n: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(t)
    grid = _grid(M, N, block_m, block_n)
    dpart = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
    deadzone_bwd_kernel[grid](g, x, t, dx, dpart, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                              t.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dpart.sum(0).to(t.dtype)


class SoftDeadzone(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, t)
        return deadzone_forward(x, t)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, t = ctx.saved_tensors
        return deadzone_backward(g, x, t)


def soft_deadzone(x: torch.Tensor, width: torch.Tensor) -> torch.Tensor:
    return SoftDeadzone.apply(x, width)


def reference(x: torch.Tensor, width: torch.Tensor) -> torch.Tensor:
    return x - width * torch.tanh(x / width)


spec = kcheck.Spec(
    name="hx40_soft_deadzone_train_ok",
    kernel=soft_deadzone,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="width")],
    dims={"M": kcheck.Dim(nominal=80, real=()), "N": kcheck.Dim(nominal=200, real=())},
    grad=True,
)

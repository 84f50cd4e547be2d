"""Gaussian-damped gate with a learned per-feature width, for training: y = x * exp(-(a[n] x)^2), a Triton forward
and backward behind a torch.autograd.Function, checked in both passes with ``Spec(grad=True)``.

With q = (a x)^2 and e = exp(-q), the backward is::

    dx = g * e * (1 - 2 q)
    da = sum over rows of g * e * (-2 a x^3)

Each program takes BLOCK_M rows of one BLOCK_N column strip; the backward writes its strip's partial da (fp32) to its
own row of a [row programs, N] buffer, summed afterwards (deterministic, no atomics). int64 offsets, strides
honoured."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def gate_fwd_kernel(x_ptr, a_ptr, y_ptr, M, N, s_xm, s_xn, s_a, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a).to(tl.float32)
    ax = a[None, :] * x
    y = x * tl.exp(-(ax * ax))
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gate_bwd_kernel(g_ptr, x_ptr, a_ptr, dx_ptr, da_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_a, s_dm, s_dn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=col_mask, other=0.0).to(tl.float32)
    ax = a[None, :] * x
    q = ax * ax
    e = tl.exp(-q)
    dx = g * e * (1.0 - 2.0 * q)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    da = tl.where(mask, g * e * (-2.0 * ax * x * x), 0.0)
    tl.store(da_part_ptr + pid_m * N + cols, tl.sum(da, axis=0), mask=col_mask)


def _grid(M: int, N: int, BLOCK_M: int, BLOCK_N: int) -> tuple[int, int]:
    return triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)


def gate_forward(x: torch.Tensor, a: torch.Tensor, BLOCK_M: int, BLOCK_N: int) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        gate_fwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](x, a, y, M, N, x.stride(0), x.stride(1), a.stride(0),
                                                       y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def gate_backward(g: torch.Tensor, x: torch.Tensor, a: torch.Tensor, BLOCK_M: int,
                  BLOCK_N: int) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(a)
    grid = _grid(M, N, BLOCK_M, BLOCK_N)
    da_part = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
    gate_bwd_kernel[grid](g, x, a, dx, da_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                          a.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, da_part.sum(0).to(a.dtype)


class GaussianDampedGate(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: torch.Tensor, BLOCK_M: int, BLOCK_N: int) -> torch.Tensor:
        ctx.save_for_backward(x, a)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return gate_forward(x, a, BLOCK_M, BLOCK_N)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None, None]:
        x, a = ctx.saved_tensors
        dx, da = gate_backward(g, x, a, *ctx.blocks)
        return dx, da, None, None


def gaussian_damped_gate(x: torch.Tensor, a: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    return GaussianDampedGate.apply(x, a, BLOCK_M, BLOCK_N)


def reference(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    return x * torch.exp(-(a * x) ** 2)


spec = kcheck.Spec(
    name="hx31_gaussian_damped_gate_train",
    kernel=gaussian_damped_gate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="width")],
    # grid axis 1 (column strips) is limited to 65535 blocks: N stays out of the past-2**31 cases
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=192, real=(), large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
    grad=True,
)

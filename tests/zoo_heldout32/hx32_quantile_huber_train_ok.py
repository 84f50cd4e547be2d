"""Quantile Huber loss of distributional reinforcement learning (QR-DQN, Dabney et al. 2018), for training: row m
holds N quantile estimates theta[m, n] at the midpoints tau_n = (n + 1/2) / N, compared with one target z[m]:

    u = z - theta,   rho(u) = |tau_n - 1{u < 0}| H_kappa(u) / kappa
    H_kappa(u) = u^2 / 2 where |u| <= kappa, else kappa (|u| - kappa / 2)

(element-wise loss, [M, N]). kappa is a mode. Triton forward and backward behind a torch.autograd.Function; with
g the upstream gradient and H' the Huber derivative (u inside the threshold, kappa sign(u) outside)::

    dtheta = -g w H'(u) / kappa,     dz = sum_n g w H'(u) / kappa,     w = |tau_n - 1{u < 0}|

Each program takes BLOCK_M rows of one BLOCK_N-wide block (N <= 4096), so the target's gradient is a plain row sum
(no atomics, deterministic). Strides passed explicitly, int64 offsets, fp32 inside.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

TILE = 4096


@triton.jit
def _residual_weight(theta, z, cols, N, kappa):
    u = z[:, None] - theta
    tau = (cols.to(tl.float32) + 0.5) / N
    w = tl.abs(tau[None, :] - tl.where(u < 0.0, 1.0, 0.0))
    inside = tl.abs(u) <= kappa
    return u, w, inside


@triton.jit
def qhuber_fwd_kernel(t_ptr, z_ptr, y_ptr, M, N, kappa, s_tm, s_tn, s_z, s_ym, s_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    mask = rmask[:, None] & (cols < N)[None, :]
    theta = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + rows * s_z, mask=rmask, other=0.0).to(tl.float32)
    u, w, inside = _residual_weight(theta, z, cols, N, kappa)
    huber = tl.where(inside, 0.5 * u * u, kappa * (tl.abs(u) - 0.5 * kappa))
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, (w * huber / kappa).to(y_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def qhuber_bwd_kernel(g_ptr, t_ptr, z_ptr, dt_ptr, dz_ptr, M, N, kappa, s_gm, s_gn, s_tm, s_tn, s_z, s_dm, s_dn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    mask = rmask[:, None] & (cols < N)[None, :]
    theta = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + rows * s_z, mask=rmask, other=0.0).to(tl.float32)
    u, w, _ = _residual_weight(theta, z, cols, N, kappa)
    slope = tl.where(u < -kappa, -kappa, tl.where(u > kappa, kappa, u))  # NaN stays NaN
    du = tl.where(mask, g * w * slope / kappa, 0.0)
    tl.store(dt_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, (-du).to(dt_ptr.dtype.element_ty), mask=mask)
    tl.store(dz_ptr + rows, tl.sum(du, axis=1).to(dz_ptr.dtype.element_ty), mask=rmask)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


def qhuber_forward(theta: torch.Tensor, z: torch.Tensor, kappa: float) -> torch.Tensor:
    M, N = theta.shape
    y = torch.empty((M, N), dtype=theta.dtype, device=theta.device)
    if M == 0 or N == 0:
        return y
    block_m, block_n, programs = _blocks(M, N)
    qhuber_fwd_kernel[(programs,)](theta, z, y, M, N, float(kappa), theta.stride(0), theta.stride(1), z.stride(0),
                                   y.stride(0), y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def qhuber_backward(g: torch.Tensor, theta: torch.Tensor, z: torch.Tensor,
                    kappa: float) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = theta.shape
    dtheta = torch.empty((M, N), dtype=theta.dtype, device=theta.device)
    dz = torch.empty((M,), dtype=z.dtype, device=z.device)
    if M == 0:
        return dtheta, dz
    if N == 0:
        return dtheta, dz.zero_()
    block_m, block_n, programs = _blocks(M, N)
    qhuber_bwd_kernel[(programs,)](g, theta, z, dtheta, dz, M, N, float(kappa), g.stride(0), g.stride(1),
                                   theta.stride(0), theta.stride(1), z.stride(0), dtheta.stride(0), dtheta.stride(1),
                                   BLOCK_M=block_m, BLOCK_N=block_n)
    return dtheta, dz


class QuantileHuber(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, theta: torch.Tensor, z: torch.Tensor, kappa: float) -> torch.Tensor:
        ctx.save_for_backward(theta, z)
        ctx.kappa = kappa
        return qhuber_forward(theta, z, kappa)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        theta, z = ctx.saved_tensors
        dtheta, dz = qhuber_backward(g, theta, z, ctx.kappa)
        return dtheta, dz, None


def quantile_huber(theta: torch.Tensor, z: torch.Tensor, kappa: float = 1.0) -> torch.Tensor:
    return QuantileHuber.apply(theta, z, kappa)


def reference(theta: torch.Tensor, z: torch.Tensor, kappa: float = 1.0) -> torch.Tensor:
    N = theta.shape[-1]
    u = z[:, None] - theta
    tau = (torch.arange(N, dtype=theta.dtype, device=theta.device) + 0.5) / N
    w = (tau - (u < 0).to(theta.dtype)).abs()
    huber = torch.nn.functional.huber_loss(u, torch.zeros_like(u), reduction="none", delta=kappa)
    return w * huber / kappa


spec = kcheck.Spec(
    name="hx32_quantile_huber_train_ok",
    kernel=quantile_huber,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="theta"), kcheck.Tensor("M", name="target")],
    dims={"M": kcheck.Dim(nominal=48, real=()), "N": kcheck.Dim(nominal=51, max=4096, real=())},
    params={"kappa": [1.0, 0.25]},
    grad=True,
)

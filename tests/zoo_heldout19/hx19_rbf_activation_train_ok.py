"""Gaussian radial-basis activation with learnable per-feature centres, for training:

    y[m, n] = exp(-gamma * (x[m, n] - mu[n])^2),   gamma = 0.5

Backward, with g the upstream gradient and d = x - mu: dx = -2 gamma d y g, dmu = sum over rows of 2 gamma d y g.
The forward and dx are one Triton kernel each over BLOCK_M x BLOCK_N tiles; dmu is a second pass, one program per
BLOCK_N features looping over the rows in fp32 (deterministic, no atomics)."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
GAMMA = 0.5


@triton.jit
def rbf_fwd_kernel(x_ptr, mu_ptr, y_ptr, M, N, gamma, sxm, sxn, smu, sym, syn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    mu = tl.load(mu_ptr + cols * smu, mask=cols < N, other=0.0).to(tl.float32)
    d = x - mu[None, :]
    y = tl.exp(-gamma * d * d)
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rbf_dx_kernel(g_ptr, x_ptr, mu_ptr, dx_ptr, M, N, gamma, sgm, sgn, sxm, sxn, smu, sdm, sdn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    mu = tl.load(mu_ptr + cols * smu, mask=cols < N, other=0.0).to(tl.float32)
    d = x - mu[None, :]
    dx = -2.0 * gamma * d * tl.exp(-gamma * d * d) * g
    tl.store(dx_ptr + rows[:, None] * sdm + cols[None, :] * sdn, dx.to(dx_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rbf_dmu_kernel(g_ptr, x_ptr, mu_ptr, dmu_ptr, M, N, gamma, sgm, sgn, sxm, sxn, smu,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mu = tl.load(mu_ptr + cols * smu, mask=col_mask, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        mask = (rows < M)[:, None] & col_mask[None, :]
        g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
        d = x - mu[None, :]
        acc += tl.where(mask, 2.0 * gamma * d * tl.exp(-gamma * d * d) * g, 0.0)
    tl.store(dmu_ptr + cols, tl.sum(acc, axis=0).to(dmu_ptr.dtype.element_ty), mask=col_mask)


BM, BN = 16, 64


def rbf_forward(x: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        rbf_fwd_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, mu, y, M, N, GAMMA, x.stride(0), x.stride(1),
                                                                 mu.stride(0), y.stride(0), y.stride(1),
                                                                 BLOCK_M=BM, BLOCK_N=BN)
    return y


def rbf_backward(g: torch.Tensor, x: torch.Tensor, mu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    dmu = torch.empty((N,), dtype=mu.dtype, device=mu.device)
    if N == 0:
        return dx, dmu
    if M == 0:
        return dx, dmu.zero_()
    rbf_dx_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](g, x, mu, dx, M, N, GAMMA, g.stride(0), g.stride(1),
                                                            x.stride(0), x.stride(1), mu.stride(0), dx.stride(0),
                                                            dx.stride(1), BLOCK_M=BM, BLOCK_N=BN)
    rbf_dmu_kernel[(triton.cdiv(N, BN),)](g, x, mu, dmu, M, N, GAMMA, g.stride(0), g.stride(1), x.stride(0),
                                          x.stride(1), mu.stride(0), BLOCK_M=BM, BLOCK_N=BN)
    return dx, dmu


class RBFActivation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, mu)
        return rbf_forward(x, mu)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, mu = ctx.saved_tensors
        return rbf_backward(g, x, mu)


def rbf_activation(x: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    return RBFActivation.apply(x, mu)


def reference(x: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    return torch.exp(-GAMMA * (x - mu).pow(2))


spec = kcheck.Spec(
    name="hx19_rbf_activation_train_ok",
    kernel=rbf_activation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="centres")],
    dims={"M": kcheck.Dim(nominal=64, max=4096), "N": kcheck.Dim(nominal=192, max=4096)},
    grad=True,
)

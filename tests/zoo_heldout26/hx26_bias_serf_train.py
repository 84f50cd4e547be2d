"""Fused bias + Serf activation for training (Nag & Bhattacharyya, "SERF: towards better training of deep neural
networks using log-Softplus ERror activation Function"), forward and backward in Triton:

    z = x + b,     y = z * erf(softplus(z))

    dy/dz = erf(sp) + z * (2 / sqrt(pi)) * exp(-sp^2) * sigmoid(z),     sp = softplus(z)
    dx = g * dy/dz,     db = sum over rows of g * dy/dz

softplus is max(z, 0) + log(1 + exp(-|z|)) (the small-argument series for log(1 + u)), sigmoid is evaluated on the
side where exp cannot overflow. x is [M, N], the bias [N]; BLOCK_M rows per program. The backward writes dx and
adds each program's partial bias gradient (fp32) into db with atomics.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"

TILE = 2048  # elements per program


@triton.jit
def _softplus(z):
    u = tl.exp(-tl.abs(z))
    return tl.maximum(z, 0.0) + tl.where(u < 1e-4, u * (1.0 - 0.5 * u), tl.log(1.0 + u))


@triton.jit
def serf_fwd_kernel(x_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_b, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_ok = cols < N
    m = (rows < M)[:, None] & col_ok[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=m, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=col_ok, other=0.0).to(tl.float32)
    z = x + b[None, :]
    y = z * tl.erf(_softplus(z))
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=m)


@triton.jit
def serf_bwd_kernel(g_ptr, x_ptr, b_ptr, dx_ptr, db_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_b, s_dm, s_dn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_ok = cols < N
    m = (rows < M)[:, None] & col_ok[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=m, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=m, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=col_ok, other=0.0).to(tl.float32)
    z = x + b[None, :]
    sp = _softplus(z)
    e = tl.exp(-tl.abs(z))
    sig = tl.where(z >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    dz = tl.erf(sp) + z * 1.1283791670955126 * tl.exp(-sp * sp) * sig
    gz = tl.where(m, g * dz, 0.0)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, gz.to(dx_ptr.dtype.element_ty), mask=m)
    tl.store(db_ptr + cols, tl.load(db_ptr + cols, mask=col_ok, other=0.0) + tl.sum(gz, axis=0), mask=col_ok)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class BiasSerf(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            block_m, block_n, programs = _blocks(M, N)
            serf_fwd_kernel[(programs,)](x, b, y, M, N, x.stride(0), x.stride(1), b.stride(0), y.stride(0),
                                         y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
        ctx.save_for_backward(x, b)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, b = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        db = torch.zeros((N,), dtype=torch.float32, device=x.device)
        if M and N:
            block_m, block_n, programs = _blocks(M, N)
            serf_bwd_kernel[(programs,)](g, x, b, dx, db, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                                         b.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
        return dx, db.to(b.dtype)


def bias_serf(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return BiasSerf.apply(x, b)


def reference(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    z = x + b
    return z * torch.erf(torch.nn.functional.softplus(z))


spec = kcheck.Spec(
    name="hx26_bias_serf_train",
    kernel=bias_serf,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="bias")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, max=2048, real=())},
    grad=True,
)

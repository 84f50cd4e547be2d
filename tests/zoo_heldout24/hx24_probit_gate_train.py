"""Probit gate for training: y = Phi(x * scale + shift) with Phi the standard normal CDF and a learnable scale and
shift per feature (x [M, N], scale [N], shift [N]). Forward and backward are Triton kernels behind a
torch.autograd.Function. With z = x * scale + shift and phi the standard normal density,

    Phi(z) = (1 + erf(z / sqrt(2))) / 2,      phi(z) = exp(-z^2 / 2) / sqrt(2 pi)
    dx = g phi(z) scale,   dscale = sum over rows of g phi(z) x,   dshift = sum over rows of g phi(z)

Both kernels tile [BLOCK_M, BLOCK_N] on a 1-D grid; the backward writes each row block's partial dscale and dshift
(fp32) to its own row of a [row blocks, N] buffer, summed afterwards (deterministic, no atomics). Any strides;
int64 offsets.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

BLOCK_M = 32
BLOCK_N = 64


@triton.jit
def probit_fwd_kernel(x_ptr, s_ptr, t_ptr, y_ptr, M, N, sxm, sxn, ss, st, sym, syn, n_col_tiles,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_col_tiles) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = (pid % n_col_tiles) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols * ss, mask=cmask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + cols * st, mask=cmask, other=0.0).to(tl.float32)
    z = x * s[None, :] + t[None, :]
    y = 0.5 * (1.0 + tl.erf(z * 0.7071067811865476))
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def probit_bwd_kernel(g_ptr, x_ptr, s_ptr, t_ptr, dx_ptr, ds_part_ptr, dt_part_ptr, M, N, sgm, sgn, sxm, sxn, ss, st,
                      sdm, sdn, n_col_tiles, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    row_block = pid // n_col_tiles
    rows = row_block * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = (pid % n_col_tiles) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols * ss, mask=cmask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + cols * st, mask=cmask, other=0.0).to(tl.float32)
    z = x * s[None, :] + t[None, :]
    dz = g * (0.7978845608028654 * tl.exp(-0.5 * z * z))
    dz = tl.where(mask, dz, 0.0)
    tl.store(dx_ptr + rows[:, None] * sdm + cols[None, :] * sdn, (dz * s[None, :]).to(dx_ptr.dtype.element_ty),
             mask=mask)
    tl.store(ds_part_ptr + row_block * N + cols, tl.sum(dz * x, axis=0), mask=cmask)
    tl.store(dt_part_ptr + row_block * N + cols, tl.sum(dz, axis=0), mask=cmask)


def probit_forward(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        n_col_tiles = triton.cdiv(N, BLOCK_N)
        probit_fwd_kernel[(triton.cdiv(M, BLOCK_M) * n_col_tiles,)](
            x, scale, shift, y, M, N, x.stride(0), x.stride(1), scale.stride(0), shift.stride(0), y.stride(0),
            y.stride(1), n_col_tiles, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def probit_backward(g: torch.Tensor, x: torch.Tensor, scale: torch.Tensor,
                    shift: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(scale), torch.zeros_like(shift)
    row_blocks = triton.cdiv(M, BLOCK_M)
    n_col_tiles = triton.cdiv(N, BLOCK_N)
    ds_part = torch.empty((row_blocks, N), dtype=torch.float32, device=x.device)
    dt_part = torch.empty((row_blocks, N), dtype=torch.float32, device=x.device)
    probit_bwd_kernel[(row_blocks * n_col_tiles,)](
        g, x, scale, shift, dx, ds_part, dt_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
        scale.stride(0), shift.stride(0), dx.stride(0), dx.stride(1), n_col_tiles, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, ds_part.sum(0).to(scale.dtype), dt_part.sum(0).to(shift.dtype)


class ProbitGate(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, scale, shift)
        return probit_forward(x, scale, shift)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x, scale, shift = ctx.saved_tensors
        return probit_backward(g, x, scale, shift)


def probit_gate(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    return ProbitGate.apply(x, scale, shift)


def reference(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    z = x * scale + shift
    return 0.5 * (1.0 + torch.erf(z / 2.0 ** 0.5))


spec = kcheck.Spec(
    name="hx24_probit_gate_train",
    kernel=probit_gate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="scale"),
            kcheck.Tensor("N", pattern="randn", name="shift")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=160, real=())},
    grad=True,
)

"""Squared ReLU with a learned per-feature bias (Primer's activation after a bias-free projection), for training:
y = relu(x + b)^2, Triton forward and backward behind a torch.autograd.Function.

Backward, with g the upstream gradient: dx = 2 relu(x + b) g, and db = sum over rows of dx. Each backward program
handles BLOCK_M rows and writes its partial db (fp32) to its own row of a [programs, N] buffer, summed afterwards
in a fixed order (deterministic, no atomics). Rows fit one block (N <= 8192); any input strides.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None
TILE = 4096


@triton.jit
def sqrelu_fwd_kernel(x_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_b, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=cols < N, other=0.0).to(tl.float32)
    z = x + b[None, :]
    r = tl.where(z > 0.0, z, 0.0)
    r = tl.where(z != z, z, r)  # keep NaN
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], (r * r).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sqrelu_bwd_kernel(g_ptr, x_ptr, b_ptr, dx_ptr, db_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_b,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=cols < N, other=0.0).to(tl.float32)
    z = x + b[None, :]
    r = tl.where(z > 0.0, z, 0.0)
    r = tl.where(z != z, z, r)
    dz = tl.where(mask, 2.0 * r * g, 0.0)
    tl.store(dx_ptr + rows[:, None] * N + cols[None, :], dz.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(db_part_ptr + pid * N + cols, tl.sum(dz, axis=0), mask=cols < N)


def _blocks(M, N):
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class BiasSquaredReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, b):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            block_m, block_n, programs = _blocks(M, N)
            sqrelu_fwd_kernel[(programs,)](x, b, y, M, N, x.stride(0), x.stride(1), b.stride(0),
                                           BLOCK_M=block_m, BLOCK_N=block_n)
        ctx.save_for_backward(x, b)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, b = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(b)
        block_m, block_n, programs = _blocks(M, N)
        db_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        sqrelu_bwd_kernel[(programs,)](g, x, b, dx, db_part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                       x.stride(1), b.stride(0), BLOCK_M=block_m, BLOCK_N=block_n)
        return dx, db_part.sum(0).to(b.dtype)


def bias_squared_relu(x, b):
    return BiasSquaredReLU.apply(x, b)


def reference(x, b):
    return torch.relu(x + b) ** 2


spec = kcheck.Spec(
    name="bias_squared_relu_train_ok",
    kernel=bias_squared_relu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="bias")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=192, max=8192, real=())},
    grad=True,
)

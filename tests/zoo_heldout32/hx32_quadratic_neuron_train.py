"""Quadratic neuron layer for training (per-feature quadratic response, as in quadratic/"QuadraLib" networks):
y[m, n] = a[n] x[m, n]^2 + b[n] x[m, n] + c[n], with learned a, b, c. Triton forward and backward behind a
torch.autograd.Function. Backward, with g the upstream gradient::

    dx = g (2 a x + b),   da = sum_m g x^2,   db = sum_m g x,   dc = sum_m g

The backward runs on a 2-D grid of [BLOCK_M, BLOCK_N] tiles: each program writes its tile of dx and adds its
column partial sums of da, db and dc into fp32 buffers (zeroed) with atomic adds, several row-block programs per
column block. Strides passed explicitly, int64 offsets, fp32 inside; the parameter gradients are cast back to the
parameters' dtype.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def quad_fwd_kernel(x_ptr, a_ptr, b_ptr, c_ptr, y_ptr, M, N, s_xm, s_xn, s_a, s_b, s_c, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=cmask, other=0.0).to(tl.float32)
    c = tl.load(c_ptr + cols * s_c, mask=cmask, other=0.0).to(tl.float32)
    y = (a[None, :] * x + b[None, :]) * x + c[None, :]
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def quad_bwd_kernel(g_ptr, x_ptr, a_ptr, b_ptr, dx_ptr, da_ptr, db_ptr, dc_ptr, M, N, s_gm, s_gn, s_xm, s_xn,
                    s_a, s_b, s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=cmask, other=0.0).to(tl.float32)
    dx = g * (2.0 * a[None, :] * x + b[None, :])
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    gx = g * x
    tl.atomic_add(da_ptr + cols, tl.sum(gx * x, axis=0), mask=cmask)
    tl.store(db_ptr + cols, tl.load(db_ptr + cols, mask=cmask) + tl.sum(gx, axis=0), mask=cmask)
    tl.atomic_add(dc_ptr + cols, tl.sum(g, axis=0), mask=cmask)


def _grid(M: int, N: int, BLOCK_M: int, BLOCK_N: int) -> tuple[int, int]:
    return triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)


def quad_forward(x, a, b, c, BLOCK_M, BLOCK_N):
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    quad_fwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](
        x, a, b, c, y, M, N, x.stride(0), x.stride(1), a.stride(0), b.stride(0), c.stride(0), y.stride(0),
        y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def quad_backward(g, x, a, b, BLOCK_M, BLOCK_N):
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    sums = torch.zeros((3, N), dtype=torch.float32, device=x.device)
    if M and N:
        quad_bwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](
            g, x, a, b, dx, sums[0], sums[1], sums[2], M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
            a.stride(0), b.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, sums[0].to(a.dtype), sums[1].to(a.dtype), sums[2].to(a.dtype)


class QuadraticNeuron(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, a, b, c, BLOCK_M, BLOCK_N):
        ctx.save_for_backward(x, a, b)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return quad_forward(x, a, b, c, BLOCK_M, BLOCK_N)

    @staticmethod
    def backward(ctx: Any, g):
        x, a, b = ctx.saved_tensors
        dx, da, db, dc = quad_backward(g, x, a, b, *ctx.blocks)
        return dx, da, db, dc, None, None


def quadratic_neuron(x, a, b, c, BLOCK_M: int = 16, BLOCK_N: int = 64):
    return QuadraticNeuron.apply(x, a, b, c, BLOCK_M, BLOCK_N)


def reference(x, a, b, c):
    return (a * x + b) * x + c


spec = kcheck.Spec(
    name="hx32_quadratic_neuron_train",
    kernel=quadratic_neuron,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="a"),
            kcheck.Tensor("N", pattern="randn", name="b"), kcheck.Tensor("N", pattern="randn", name="c")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=80, real=())},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
    grad=True,
)

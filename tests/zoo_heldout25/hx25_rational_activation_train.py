"""Learnable rational activation for training (a "safe" Pade activation unit): y = P(x) / Q(x) with
P(x) = a0 + a1 x + a2 x^2 + a3 x^3 and Q(x) = 1 + |b0| |x| + |b1| x^2 (Q >= 1, no poles). Triton forward and
backward behind a torch.autograd.Function: the backward writes dx tile by tile and sums the six coefficient
gradients (four of a, two of b) over every element of x. Each program of the [BLOCK_M, BLOCK_N]-tiled 2-D grid
reduces its tile to six fp32 partials and adds them with atomics into a zeroed fp32 buffer, converted to the
coefficients' dtype at the end. Strides passed explicitly, int64 offsets."""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def _sign(v):
    return tl.where(v > 0, 1.0, tl.where(v < 0, -1.0, 0.0))


@triton.jit
def rational_fwd_kernel(x_ptr, a_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_ym, s_yn, s_a, s_b,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a0 = tl.load(a_ptr).to(tl.float32)
    a1 = tl.load(a_ptr + s_a).to(tl.float32)
    a2 = tl.load(a_ptr + 2 * s_a).to(tl.float32)
    a3 = tl.load(a_ptr + 3 * s_a).to(tl.float32)
    b0 = tl.abs(tl.load(b_ptr).to(tl.float32))
    b1 = tl.abs(tl.load(b_ptr + s_b).to(tl.float32))
    p = a0 + x * (a1 + x * (a2 + x * a3))
    q = 1.0 + b0 * tl.abs(x) + b1 * x * x
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, (p / q).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rational_bwd_kernel(g_ptr, x_ptr, a_ptr, b_ptr, dx_ptr, dcoef_ptr, M, N, s_gm, s_gn, s_xm, s_xn,
                        s_dm, s_dn, s_a, s_b, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    g = tl.where(mask, g, 0.0)
    a0 = tl.load(a_ptr).to(tl.float32)
    a1 = tl.load(a_ptr + s_a).to(tl.float32)
    a2 = tl.load(a_ptr + 2 * s_a).to(tl.float32)
    a3 = tl.load(a_ptr + 3 * s_a).to(tl.float32)
    b0r = tl.load(b_ptr).to(tl.float32)
    b1r = tl.load(b_ptr + s_b).to(tl.float32)
    b0 = tl.abs(b0r)
    b1 = tl.abs(b1r)
    ax = tl.abs(x)
    x2 = x * x
    p = a0 + x * (a1 + x * (a2 + x * a3))
    q = 1.0 + b0 * ax + b1 * x2
    dp = a1 + x * (2.0 * a2 + 3.0 * a3 * x)
    dq = b0 * _sign(x) + 2.0 * b1 * x
    inv_q = 1.0 / q
    r = p * inv_q * inv_q  # P / Q^2
    dx = g * (dp * inv_q - r * dq)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    gq = g * inv_q
    tl.atomic_add(dcoef_ptr + 0, tl.sum(tl.sum(gq, axis=1), axis=0))
    tl.atomic_add(dcoef_ptr + 1, tl.sum(tl.sum(gq * x, axis=1), axis=0))
    tl.atomic_add(dcoef_ptr + 2, tl.sum(tl.sum(gq * x2, axis=1), axis=0))
    tl.atomic_add(dcoef_ptr + 3, tl.sum(tl.sum(gq * x2 * x, axis=1), axis=0))
    gr = g * r
    tl.atomic_add(dcoef_ptr + 4, -_sign(b0r) * tl.sum(tl.sum(gr * ax, axis=1), axis=0))
    tl.atomic_add(dcoef_ptr + 5, -_sign(b1r) * tl.sum(tl.sum(gr * x2, axis=1), axis=0))


def _grid(M, N, BLOCK_M, BLOCK_N):
    return (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))


class RationalActivation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, a, b, BLOCK_M=16, BLOCK_N=64):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            rational_fwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](
                x, a, b, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), a.stride(0), b.stride(0),
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, a, b)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, a, b = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        dcoef = torch.empty(6, dtype=torch.float32, device=x.device)
        if M and N:
            rational_bwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](
                g, x, a, b, dx, dcoef, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                dx.stride(0), dx.stride(1), a.stride(0), b.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dcoef[:4].to(a.dtype), dcoef[4:].to(b.dtype), None, None


def rational_activation(x, a, b, BLOCK_M=16, BLOCK_N=64):
    return RationalActivation.apply(x, a, b, BLOCK_M, BLOCK_N)


def reference(x, a, b):
    p = a[0] + a[1] * x + a[2] * x ** 2 + a[3] * x ** 3
    q = 1 + b[0].abs() * x.abs() + b[1].abs() * x ** 2
    return p / q


spec = kcheck.Spec(
    name="hx25_rational_activation_train",
    kernel=rational_activation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor(4, pattern="randn", name="a"),
            kcheck.Tensor(2, pattern="randn", name="b")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=192)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
    grad=True,
)

"""Gompertz-gated activation with a learned per-feature slope, for training (Triton forward and backward).

y[m, n] = x * G(a[n] * x),   G(z) = exp(-exp(-z))   (the Gompertz CDF as a smooth, asymmetric gate)
Backward, with g the upstream gradient, z = a x and h = G(z) exp(-z) = exp(-z - exp(-z)):
    dx[m, n] = g * (G(z) + a[n] * x * h)
    da[n]    = sum_m g * x^2 * h
The forward evaluates both exponentials as exp2 with log2(e) folded in; the backward writes per-program partial
slope gradients (fp32, [programs, N]) summed afterwards, so da is deterministic. fp32 arithmetic.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def gompertz_fwd_kernel(x_ptr, a_ptr, y_ptr, M, N, s_xm, s_xn, s_a, s_ym, s_yn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)
    z = a[None, :] * x
    t = tl.exp2(-z * 0.6931471805599453)
    gate = tl.exp2(-t * 1.4426950408889634)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, (x * gate).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gompertz_bwd_kernel(g_ptr, x_ptr, a_ptr, dx_ptr, da_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_a, s_dm, s_dn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)
    z = a[None, :] * x
    flat = z < -50.0  # the gate is exactly 0 there, and so is its slope
    zc = tl.where(flat, -50.0, z)
    t = tl.exp(-zc)
    gate = tl.exp(-t)
    h = tl.exp(-zc - t)
    xh = tl.where(flat, 0.0 * x, x * h)  # 0 * x: an infinite x leaves da undefined (NaN), as it is
    dx = g * (gate + tl.where(flat, 0.0, a[None, :] * xh))
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    da = tl.sum(tl.where(mask, g * x * xh, 0.0), axis=0)
    tl.store(da_part_ptr + pid * N + cols, da, mask=cmask)


def _blocks(M, N):
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class GompertzGate(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, a):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            block_m, block_n, programs = _blocks(M, N)
            gompertz_fwd_kernel[(programs,)](x, a, y, M, N, x.stride(0), x.stride(1), a.stride(0), y.stride(0),
                                             y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
        ctx.save_for_backward(x, a)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, a = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(a)
        block_m, block_n, programs = _blocks(M, N)
        da_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        gompertz_bwd_kernel[(programs,)](g, x, a, dx, da_part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                         x.stride(1), a.stride(0), dx.stride(0), dx.stride(1),
                                         BLOCK_M=block_m, BLOCK_N=block_n)
        return dx, da_part.sum(0).to(a.dtype)


def gompertz_gate(x, a):
    return GompertzGate.apply(x, a)


def reference(x, a):
    # below z = -50 the gate is exactly 0 in float64 already; the clamp keeps autograd from 0 * inf = NaN there
    return x * torch.exp(-torch.exp(-(a * x).clamp(min=-50.0)))


spec = kcheck.Spec(
    name="hx35_gompertz_gate_train",
    kernel=gompertz_gate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="slope")],
    dims={"M": kcheck.Dim(nominal=80, real=()), "N": kcheck.Dim(nominal=96, max=2048, real=())},
    grad=True,
)

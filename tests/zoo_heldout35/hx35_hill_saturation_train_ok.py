"""Hill-type saturating response with a learned per-feature amplitude, for training (Triton forward and backward).

y[m, n] = w[n] * x^2 / (1 + x^2)      (Hill coefficient 2, half-saturation at |x| = 1)
Backward, with g the upstream gradient and r = 1 / (1 + x^2):
    dx[m, n] = g * w[n] * 2 x r^2
    dw[n]    = sum_m g * x^2 r
The backward's programs each take BLOCK_M rows and write their partial dw (fp32) to their own row of a
[programs, N] buffer, summed afterwards (deterministic, no atomics). fp32 arithmetic, int64 row offsets.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def hill_fwd_kernel(x_ptr, w_ptr, y_ptr, M, N, s_xm, s_xn, s_w, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cmask, other=0.0).to(tl.float32)
    x2 = x * x
    y = w[None, :] * (x2 / (1.0 + x2))
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def hill_bwd_kernel(g_ptr, x_ptr, w_ptr, dx_ptr, dw_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_w, s_dm, s_dn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cmask, other=0.0).to(tl.float32)
    x2 = x * x
    r = 1.0 / (1.0 + x2)
    dx = g * w[None, :] * 2.0 * x * r * r
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    dw = tl.sum(tl.where(mask, g * (x2 / (1.0 + x2)), 0.0), axis=0)
    tl.store(dw_part_ptr + pid * N + cols, dw, mask=cmask)


def _blocks(M, N):
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class HillSaturation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, w):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            block_m, block_n, programs = _blocks(M, N)
            hill_fwd_kernel[(programs,)](x, w, y, M, N, x.stride(0), x.stride(1), w.stride(0), y.stride(0),
                                         y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
        ctx.save_for_backward(x, w)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, w = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(w)
        block_m, block_n, programs = _blocks(M, N)
        dw_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        hill_bwd_kernel[(programs,)](g, x, w, dx, dw_part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                     x.stride(1), w.stride(0), dx.stride(0), dx.stride(1),
                                     BLOCK_M=block_m, BLOCK_N=block_n)
        return dx, dw_part.sum(0).to(w.dtype)


def hill_saturation(x, w):
    return HillSaturation.apply(x, w)


def reference(x, w):
    return w * x * x / (1.0 + x * x)


spec = kcheck.Spec(
    name="hx35_hill_saturation_train_ok",
    kernel=hill_saturation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="amplitude")],
    dims={"M": kcheck.Dim(nominal=80, real=()), "N": kcheck.Dim(nominal=96, max=2048, real=())},
    grad=True,
)

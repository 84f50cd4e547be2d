"""Signed-log feature compression with a learned per-feature gain, for training (Triton forward and backward).

y[m, n] = w[n] * sign(x) * log(1 + |x|)      (a symmetric log transform for heavy-tailed inputs, e.g. counts)
Backward, with g the upstream gradient:
    dx[m, n] = g * w[n] / (1 + |x|)
    dw[n]    = sum_m g * sign(x) * log(1 + |x|)
The backward grid is (row block, column block); each program reduces its rows of dw and adds them into an fp32
buffer of length N with atomics, cast to w's dtype at the end. fp32 arithmetic throughout; log(1 + |x|) uses
Goldberg's correction so that small inputs keep their digits.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def _signed_log(x):
    a = tl.abs(x)
    u = 1.0 + a
    d = u - 1.0
    log1p = tl.where(d == 0.0, a, tl.log(u) * tl.where(d == a, 1.0, a / tl.where(d == 0.0, 1.0, d)))
    return tl.where(x < 0, -log1p, log1p)


@triton.jit
def slog_fwd_kernel(x_ptr, w_ptr, y_ptr, M, N, s_xm, s_xn, s_w, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cmask, other=0.0).to(tl.float32)
    y = w[None, :] * _signed_log(x)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def slog_bwd_kernel(g_ptr, x_ptr, w_ptr, dx_ptr, dw_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_w, s_dm, s_dn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cmask, other=0.0).to(tl.float32)
    dx = g * w[None, :] / (1.0 + tl.abs(x))
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    dw = tl.sum(tl.where(mask, g * _signed_log(x), 0.0), axis=0)
    tl.atomic_add(dw_ptr + cols, dw, mask=cmask)


def _grid(M, N, BLOCK_M, BLOCK_N):
    return (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))


class SignedLogScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, w, BLOCK_M=16, BLOCK_N=64):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            slog_fwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](x, w, y, M, N, x.stride(0), x.stride(1), w.stride(0),
                                                           y.stride(0), y.stride(1), BLOCK_M=BLOCK_M,
                                                           BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, w)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, w = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        dw = torch.empty(N, dtype=torch.float32, device=x.device)
        if M and N:
            slog_bwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](g, x, w, dx, dw, M, N, g.stride(0), g.stride(1),
                                                           x.stride(0), x.stride(1), w.stride(0), dx.stride(0),
                                                           dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dw.to(w.dtype), None, None


def signed_log_scale(x, w, BLOCK_M=16, BLOCK_N=64):
    return SignedLogScale.apply(x, w, BLOCK_M, BLOCK_N)


def reference(x, w):
    # the last term is zero in value; it gives autograd the true derivative at x = 0 (1, where sign(x) * ... has 0)
    return w * (torch.sign(x) * torch.log1p(x.abs()) + torch.where(x == 0, x, 0.0))


spec = kcheck.Spec(
    name="hx35_signed_log_scale_train",
    kernel=signed_log_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="weight")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=200, real=())},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 16}],
    grad=True,
)

"""Square nonlinearity (SQNL, Wuraola and Patel 2018) with a learned per-feature gain, for training:
y = gain[col] * sqnl(x), sqnl(x) = x - sign(x) x^2 / 4 for |x| <= 2, sign(x) beyond. Triton forward and backward
behind a torch.autograd.Function. Backward: dx = g gain (1 - |x| / 2) inside [-2, 2] and 0 outside;
dgain = sum over rows of g sqnl(x), one fp32 partial row per row-block program, summed after the launch.
[BLOCK_M, BLOCK_N] tiles on a 2-D grid, strides passed explicitly, int64 offsets."""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def _sqnl(x):
    ax = tl.abs(x)
    ax = tl.where(ax > 2.0, 2.0, ax)  # NaN stays NaN
    s = tl.where(x < 0, -1.0, 1.0)
    return s * (ax - ax * ax * 0.25)


@triton.jit
def sqnl_fwd_kernel(x_ptr, w_ptr, y_ptr, M, N, s_xm, s_xn, s_w, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=col_mask, other=0.0).to(tl.float32)
    y = w[None, :] * _sqnl(x)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sqnl_bwd_kernel(g_ptr, x_ptr, w_ptr, dx_ptr, dw_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_w, s_dm, s_dn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    g = tl.where(mask, g, 0.0)
    w = tl.load(w_ptr + cols * s_w, mask=col_mask, other=0.0).to(tl.float32)
    ax = tl.abs(x)
    slope = tl.where(ax <= 2.0, 1.0 - 0.5 * ax, 0.0)
    dx = g * w[None, :] * slope
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_part_ptr + pid_m * N + cols, tl.sum(g * _sqnl(x), axis=0), mask=col_mask)


class SQNL(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, w, BLOCK_M=16, BLOCK_N=64):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
            sqnl_fwd_kernel[grid](x, w, y, M, N, x.stride(0), x.stride(1), w.stride(0), y.stride(0), y.stride(1),
                                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, w)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, w = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(w), None, None
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        dw_part = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
        sqnl_bwd_kernel[grid](g, x, w, dx, dw_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                              w.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dw_part.sum(0).to(w.dtype), None, None


def sqnl(x, w, BLOCK_M=16, BLOCK_N=64):
    return SQNL.apply(x, w, BLOCK_M, BLOCK_N)


def reference(x, w):
    xc = x.clamp(-2.0, 2.0)
    inner = xc - torch.sign(xc) * xc * xc / 4
    return w * inner


spec = kcheck.Spec(
    name="hx25_sqnl_train_ok",
    kernel=sqnl,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="gain")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 8, "BLOCK_N": 128}],
    grad=True,
)

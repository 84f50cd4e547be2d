"""Penalized tanh with a learned per-feature bias, for training (Xu et al. 2016): z = x + b[col],
y = tanh(z) for z > 0 and 0.25 tanh(z) otherwise. Triton forward and backward behind a torch.autograd.Function;
tanh is evaluated as sign(z) (1 - e^{-2|z|}) / (1 + e^{-2|z|}), which neither overflows nor loses the sign.
Backward: dz = g (1 - tanh(z)^2) (1 or 0.25), dx = dz, db = sum of dz over the rows: each program of the
[BLOCK_M, BLOCK_N]-tiled 2-D grid writes its column sums (fp32) to its own row of a partial buffer, summed after
the launch (deterministic, no atomics). Strides passed explicitly, int64 offsets."""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

SLOPE_NEG = 0.25


@triton.jit
def ptanh_fwd_kernel(x_ptr, b_ptr, y_ptr, M, N, slope, s_xm, s_xn, s_b, s_ym, s_yn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=col_mask, other=0.0).to(tl.float32)
    z = x + b[None, :]
    t = tl.exp(-tl.abs(z))
    th = tl.where(z < 0, -1.0, 1.0) * (1.0 - t) / (1.0 + t)
    y = tl.where(z > 0, th, slope * th)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def ptanh_bwd_kernel(g_ptr, x_ptr, b_ptr, dx_ptr, db_part_ptr, M, N, slope, s_gm, s_gn, s_xm, s_xn, s_b,
                     s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=col_mask, other=0.0).to(tl.float32)
    z = x + b[None, :]
    t = tl.exp(-2.0 * tl.abs(z))
    th = tl.where(z < 0, -1.0, 1.0) * (1.0 - t) / (1.0 + t)
    dz = g * (1.0 - th * th) * tl.where(z > 0, 1.0, slope)
    dz = tl.where(mask, dz, 0.0)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dz.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(db_part_ptr + pid_m * N + cols, tl.sum(dz, axis=0), mask=col_mask)


class PenalizedTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, b, BLOCK_M=16, BLOCK_N=64):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
            ptanh_fwd_kernel[grid](x, b, y, M, N, SLOPE_NEG, x.stride(0), x.stride(1), b.stride(0), y.stride(0),
                                   y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, b)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, b = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(b), None, None
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        db_part = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
        ptanh_bwd_kernel[grid](g, x, b, dx, db_part, M, N, SLOPE_NEG, g.stride(0), g.stride(1), x.stride(0),
                               x.stride(1), b.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, db_part.sum(0).to(b.dtype), None, None


def penalized_tanh(x, b, BLOCK_M=16, BLOCK_N=64):
    return PenalizedTanh.apply(x, b, BLOCK_M, BLOCK_N)


def reference(x, b):
    z = x + b
    return torch.where(z > 0, torch.tanh(z), SLOPE_NEG * torch.tanh(z))


spec = kcheck.Spec(
    name="hx25_penalized_tanh_train",
    kernel=penalized_tanh,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="bias")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=192)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
    grad=True,
)

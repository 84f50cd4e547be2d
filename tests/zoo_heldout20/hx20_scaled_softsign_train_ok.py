"""Learnable scaled softsign with a per-channel gain and bias, for training:

    y = w[n] * x / (1 + |x|) + b[n]

Backward, with g the upstream gradient:

    dx = g * w / (1 + |x|)^2,   dw = sum over rows of g * x / (1 + |x|),   db = sum over rows of g

Forward and backward are tiled BLOCK_M x BLOCK_N (int64 row offsets, any strides); each backward program writes
its partial dw and db (fp32) to its own row of a [row tiles, N] buffer, summed by the launcher (no atomics).
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BLOCK_M, BLOCK_N = 16, 64


@triton.jit
def _softsign(x):
    # x / (1 + |x|), with its limit +-1 at +-inf
    return tl.where(tl.abs(x) > 3.0e38, tl.where(x > 0, 1.0, -1.0), x / (1.0 + tl.abs(x)))


@triton.jit
def softsign_fwd_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, sxm, sxn, sw, sb, sym, syn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * sw, mask=cmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * sb, mask=cmask, other=0.0).to(tl.float32)
    y = w[None, :] * _softsign(x) + b[None, :]
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softsign_bwd_kernel(g_ptr, x_ptr, w_ptr, dx_ptr, dw_part_ptr, db_part_ptr, M, N, sgm, sgn, sxm, sxn, sw,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * sw, mask=cmask, other=0.0).to(tl.float32)
    inv = 1.0 / (1.0 + tl.abs(x))
    dx = g * w[None, :] * inv * inv
    tl.store(dx_ptr + rows[:, None] * N + cols[None, :], dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_part_ptr + pid_m * N + cols, tl.sum(g * _softsign(x), axis=0), mask=cmask)
    tl.store(db_part_ptr + pid_m * N + cols, tl.sum(g, axis=0), mask=cmask)


class ScaledSoftsignFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
            softsign_fwd_kernel[grid](x, w, b, y, M, N, x.stride(0), x.stride(1), w.stride(0), b.stride(0),
                                      y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, w)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor):
        x, w = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(w), torch.zeros_like(w)
        tiles = triton.cdiv(M, BLOCK_M)
        dw_part = torch.empty((tiles, N), dtype=torch.float32, device=x.device)
        db_part = torch.empty((tiles, N), dtype=torch.float32, device=x.device)
        softsign_bwd_kernel[(tiles, triton.cdiv(N, BLOCK_N))](g, x, w, dx, dw_part, db_part, M, N, g.stride(0),
                                                            g.stride(1), x.stride(0), x.stride(1), w.stride(0),
                                                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dw_part.sum(0).to(w.dtype), db_part.sum(0).to(w.dtype)


def scaled_softsign(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return ScaledSoftsignFunction.apply(x, w, b)


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # softsign's limit at +-inf is +-1 with derivative 0; autograd of x / (1 + |x|) would give inf/inf there
    inf = x.isinf()
    finite_x = torch.where(inf, torch.zeros_like(x), x)
    soft = torch.where(inf, torch.sign(x), finite_x / (1 + finite_x.abs()))
    return w * soft + b


spec = kcheck.Spec(
    name="scaled_softsign_train_ok",
    kernel=scaled_softsign,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="gain"),
            kcheck.Tensor("N", pattern="randn", name="bias")],
    dims={"M": kcheck.Dim(nominal=48, max=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

BUG_CLASS = None

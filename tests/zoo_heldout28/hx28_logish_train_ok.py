"""Logish activation (Zhu et al., 2021), f(x) = x * log(1 + sigmoid(x)), with a learned per-feature gain, for
training:

    y  = w * x * log(1 + s),    s = sigmoid(x)
    dx = g * w * (log(1 + s) + x * s (1 - s) / (1 + s)),    dw = sum over rows of g * x * log(1 + s)

A Triton forward and a Triton backward behind a torch.autograd.Function. The sigmoid and s (1 - s) come from
e = exp(-|x|) (no overflow for any x, no 1 - s cancellation). The backward writes each program's partial dw
(fp32) to its own row of a [programs, N] buffer, summed afterwards (deterministic). fp32 arithmetic, strides
honoured, int64 offsets.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

BLOCK_M, BLOCK_N = 16, 64


@triton.jit
def logish_fwd_kernel(x_ptr, w_ptr, y_ptr, M, N, s_xm, s_xn, s_w, s_ym, s_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cm, other=0.0).to(tl.float32)
    e = tl.exp(-tl.abs(x))
    s = tl.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    y = w[None, :] * x * tl.log(1.0 + s)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def logish_bwd_kernel(g_ptr, x_ptr, w_ptr, dx_ptr, dw_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_w, s_dm, s_dn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cm, other=0.0).to(tl.float32)
    e = tl.exp(-tl.abs(x))
    s = tl.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    ds = e / ((1.0 + e) * (1.0 + e))  # s * (1 - s)
    log1s = tl.log(1.0 + s)
    dx = g * w[None, :] * (log1s + x * ds / (1.0 + s))
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    dw = tl.sum(g * x * log1s, axis=0)
    tl.store(dw_part_ptr + pid_m * N + cols, dw, mask=cm)


class Logish(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
            logish_fwd_kernel[grid](x, w, y, M, N, x.stride(0), x.stride(1), w.stride(0), y.stride(0), y.stride(1),
                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, w)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, w = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(w)
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        dw_part = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
        logish_bwd_kernel[grid](g, x, w, dx, dw_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                                w.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dw_part.sum(0).to(w.dtype)


def logish(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return Logish.apply(x, w)


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return w * x * torch.log1p(torch.sigmoid(x))


spec = kcheck.Spec(
    name="logish_train",
    kernel=logish,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="gain")],
    dims={"M": kcheck.Dim(nominal=72, real=()), "N": kcheck.Dim(nominal=176, max=8192, real=())},
    grad=True,
)

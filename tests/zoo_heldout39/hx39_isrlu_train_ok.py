"""Inverse square root linear unit (ISRLU, Carlile et al. 2017) with a learned per-channel softness, for
training: Triton forward and backward behind a torch.autograd.Function.

With a[c] learned per channel (alpha = a^2 >= 0 in the paper's notation):

    y = x                              for x >= 0
    y = x / sqrt(1 + a^2 x^2)          for x < 0

    dy/dx = 1 (x >= 0),  (1 + a^2 x^2)^(-3/2) (x < 0)
    dy/da = 0 (x >= 0),  -a x^3 (1 + a^2 x^2)^(-3/2) (x < 0)

The backward recomputes the negative branch's output y and uses dy/dx = (y / x)^3, dy/da = -a y^3 there. The
backward's programs (BLOCK_M rows x BLOCK_C channels) each write the partial da of their rows to their own
row of an fp32 [row blocks, C] buffer, summed afterwards: the weight gradient is deterministic.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def isrlu_fwd_kernel(x_ptr, a_ptr, y_ptr, M, C, s_xm, s_xc, s_a, s_ym, s_yc,
                     BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    c_mask = cols < C
    mask = (rows < M)[:, None] & c_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xc, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=c_mask, other=0.0).to(tl.float32)[None, :]
    xn = tl.where(x > 0.0, 0.0, x)
    ax = a * xn
    y = tl.where(x >= 0.0, x, xn / tl.sqrt(1.0 + ax * ax))
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yc, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def isrlu_bwd_kernel(g_ptr, x_ptr, a_ptr, dx_ptr, da_part_ptr, M, C, s_gm, s_gc, s_xm, s_xc, s_a, s_dm, s_dc,
                     BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    c_mask = cols < C
    mask = (rows < M)[:, None] & c_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gc, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xc, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=c_mask, other=0.0).to(tl.float32)[None, :]
    xn = tl.where(x > 0.0, 0.0, x)
    ax = a * xn
    yn = xn / tl.sqrt(1.0 + ax * ax)  # the negative branch's output
    r = yn / xn  # (1 + a^2 x^2)^(-1/2) where x < 0
    dx = g * tl.where(x >= 0.0, 1.0, r * r * r)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dc, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    dy_da = tl.where(x >= 0.0, 0.0, -a * (yn * yn * yn))  # -a x^3 (1 + a^2 x^2)^(-3/2) = -a y^3
    da = tl.sum(tl.where(mask, g * dy_da, 0.0), axis=0)
    tl.store(da_part_ptr + pid_m * C + cols, da, mask=c_mask)


def isrlu_forward(x: torch.Tensor, a: torch.Tensor, block_m: int, block_c: int) -> torch.Tensor:
    M, C = x.shape
    y = torch.empty((M, C), dtype=x.dtype, device=x.device)
    if M and C:
        grid = (triton.cdiv(M, block_m), triton.cdiv(C, block_c))
        isrlu_fwd_kernel[grid](x, a, y, M, C, x.stride(0), x.stride(1), a.stride(0), y.stride(0), y.stride(1),
                               BLOCK_M=block_m, BLOCK_C=block_c)
    return y


def isrlu_backward(g: torch.Tensor, x: torch.Tensor, a: torch.Tensor, block_m: int,
                   block_c: int) -> tuple[torch.Tensor, torch.Tensor]:
    M, C = x.shape
    dx = torch.empty((M, C), dtype=x.dtype, device=x.device)
    if M == 0 or C == 0:
        return dx, torch.zeros_like(a)
    grid = (triton.cdiv(M, block_m), triton.cdiv(C, block_c))
    da_part = torch.empty((grid[0], C), dtype=torch.float32, device=x.device)
    isrlu_bwd_kernel[grid](g, x, a, dx, da_part, M, C, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                           a.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=block_m, BLOCK_C=block_c)
    return dx, da_part.sum(0).to(a.dtype)


class ISRLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: torch.Tensor, block_m: int, block_c: int) -> torch.Tensor:
        ctx.save_for_backward(x, a)
        ctx.blocks = (block_m, block_c)
        return isrlu_forward(x, a, block_m, block_c)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None, None]:
        x, a = ctx.saved_tensors
        dx, da = isrlu_backward(g, x, a, *ctx.blocks)
        return dx, da, None, None


def isrlu(x: torch.Tensor, a: torch.Tensor, BLOCK_M: int = 32, BLOCK_C: int = 64) -> torch.Tensor:
    return ISRLUFunction.apply(x, a, BLOCK_M, BLOCK_C)


def reference(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    xn = torch.where(x > 0, 0.0, x)  # the negative branch, kept finite where x > 0
    return torch.where(x >= 0, x, xn / torch.sqrt(1.0 + (a * xn) ** 2))


spec = kcheck.Spec(
    name="hx39_isrlu_train_ok",
    kernel=isrlu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="x"), kcheck.Tensor("C", pattern="randn", name="a")],
    dims={"M": kcheck.Dim(nominal=200, real=()), "C": kcheck.Dim(nominal=80, real=(), large=False)},
    configs=[{"BLOCK_M": 32, "BLOCK_C": 64}, {"BLOCK_M": 64, "BLOCK_C": 16}],
    grad=True,
)

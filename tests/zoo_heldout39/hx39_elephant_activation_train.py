"""Elephant activation with a learned per-channel width, for training (Lan & Mahmood 2023: sparse, local
activations against catastrophic forgetting). Triton forward and backward behind a torch.autograd.Function.

With b[c] the learned inverse width of channel c (b = 1/a in the paper's f(x) = 1 / (1 + |x / a|^d)) and d = 4:

    y = 1 / (1 + (b x)^4)
    dy/dx = -4 b (b x)^3 / (1 + (b x)^4)^2        dy/db = -4 x (b x)^3 / (1 + (b x)^4)^2

Backward: dx = g * dy/dx elementwise; db[c] = sum over rows of g * dy/db. The grid tiles rows by BLOCK_M and
channels by BLOCK_C; each program reduces its tile's rows and adds the partial db into an fp32 buffer with
atomics.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def elephant_fwd_kernel(x_ptr, b_ptr, y_ptr, M, C, s_xm, s_xc, s_b, s_ym, s_yc,
                        BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    c_mask = cols < C
    mask = (rows < M)[:, None] & c_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xc, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=c_mask, other=0.0).to(tl.float32)
    u = b[None, :] * x
    u2 = u * u
    y = 1.0 / (1.0 + u2 * u2)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yc, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def elephant_bwd_kernel(g_ptr, x_ptr, b_ptr, dx_ptr, db_ptr, M, C, s_gm, s_gc, s_xm, s_xc, s_b, s_dm, s_dc,
                        BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    c_mask = cols < C
    mask = (rows < M)[:, None] & c_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gc, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xc, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=c_mask, other=0.0).to(tl.float32)
    u = b[None, :] * x
    u2 = u * u
    den = 1.0 + u2 * u2
    dy_du = -4.0 * (u2 * u) / (den * den)
    gd = g * dy_du
    dx = gd * b[None, :]
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dc, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    db = tl.sum(tl.where(mask, gd * x, 0.0), axis=0)
    tl.store(db_ptr + cols, db, mask=c_mask)


def _grid(M: int, C: int, block_m: int, block_c: int) -> tuple[int, int]:
    return triton.cdiv(M, block_m), triton.cdiv(C, block_c)


def elephant_forward(x: torch.Tensor, b: torch.Tensor, block_m: int, block_c: int) -> torch.Tensor:
    M, C = x.shape
    y = torch.empty((M, C), dtype=x.dtype, device=x.device)
    if M and C:
        elephant_fwd_kernel[_grid(M, C, block_m, block_c)](x, b, y, M, C, x.stride(0), x.stride(1), b.stride(0),
                                                            y.stride(0), y.stride(1),
                                                            BLOCK_M=block_m, BLOCK_C=block_c)
    return y


def elephant_backward(g: torch.Tensor, x: torch.Tensor, b: torch.Tensor, block_m: int,
                      block_c: int) -> tuple[torch.Tensor, torch.Tensor]:
    M, C = x.shape
    dx = torch.empty((M, C), dtype=x.dtype, device=x.device)
    db = torch.zeros((C,), dtype=torch.float32, device=x.device)
    if M and C:
        elephant_bwd_kernel[_grid(M, C, block_m, block_c)](g, x, b, dx, db, M, C, g.stride(0), g.stride(1),
                                                            x.stride(0), x.stride(1), b.stride(0), dx.stride(0),
                                                            dx.stride(1), BLOCK_M=block_m, BLOCK_C=block_c)
    return dx, db.to(b.dtype)


class ElephantFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, b: torch.Tensor, block_m: int, block_c: int) -> torch.Tensor:
        ctx.save_for_backward(x, b)
        ctx.blocks = (block_m, block_c)
        return elephant_forward(x, b, block_m, block_c)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None, None]:
        x, b = ctx.saved_tensors
        dx, db = elephant_backward(g, x, b, *ctx.blocks)
        return dx, db, None, None


def elephant(x: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 32, BLOCK_C: int = 64) -> torch.Tensor:
    return ElephantFunction.apply(x, b, BLOCK_M, BLOCK_C)


def reference(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return 1.0 / (1.0 + (b * x) ** 4)


spec = kcheck.Spec(
    name="hx39_elephant_activation_train",
    kernel=elephant,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="x"), kcheck.Tensor("C", name="b")],
    dims={"M": kcheck.Dim(nominal=256, real=()), "C": kcheck.Dim(nominal=96, real=(), large=False)},
    configs=[{"BLOCK_M": 32, "BLOCK_C": 64}, {"BLOCK_M": 16, "BLOCK_C": 16}],
    grad=True,
)

"""StarReLU (MetaFormer baselines) with a learned per-feature scale and bias, for training:

    y = s * relu(x)^2 + b
    dx = g * s * 2 * relu(x),    ds = sum over rows of g * relu(x)^2,    db = sum over rows of g

A Triton forward and a Triton backward behind a torch.autograd.Function. The backward tiles x into BLOCK_M x
BLOCK_N blocks; each program writes its dx block and adds its block's column sums for ds and db to fp32
accumulators with tl.atomic_add (zeroed by the launcher, cast to the parameters' dtype at the end). fp32
arithmetic, strides honoured, int64 offsets.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"

BLOCK_M, BLOCK_N = 16, 64


@triton.jit
def star_relu_fwd_kernel(x_ptr, s_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_s, s_b, s_ym, s_yn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols * s_s, mask=cm, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * s_b, mask=cm, other=0.0).to(tl.float32)
    r = tl.where(x < 0.0, 0.0, x)  # relu that keeps NaN, as torch.relu does
    y = s[None, :] * r * r + b[None, :]
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def star_relu_bwd_kernel(g_ptr, x_ptr, s_ptr, dx_ptr, ds_ptr, db_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_s,
                         s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols * s_s, mask=cm, other=0.0).to(tl.float32)
    r = tl.where(x < 0.0, 0.0, x)  # relu that keeps NaN, as torch.relu does
    dx = g * s[None, :] * 2.0 * r
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(ds_ptr + cols, tl.load(ds_ptr + cols, mask=cm) + tl.sum(g * r * r, axis=0), mask=cm)
    tl.atomic_add(db_ptr + cols, tl.sum(g, axis=0), mask=cm)


def _grid(M: int, N: int) -> tuple[int, int]:
    return triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)


class StarReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            star_relu_fwd_kernel[_grid(M, N)](x, scale, bias, y, M, N, x.stride(0), x.stride(1), scale.stride(0),
                                              bias.stride(0), y.stride(0), y.stride(1),
                                              BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, scale)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x, scale = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        ds = torch.zeros((N,), dtype=torch.float32, device=x.device)
        db = torch.zeros((N,), dtype=torch.float32, device=x.device)
        if M and N:
            star_relu_bwd_kernel[_grid(M, N)](g, x, scale, dx, ds, db, M, N, g.stride(0), g.stride(1), x.stride(0),
                                              x.stride(1), scale.stride(0), dx.stride(0), dx.stride(1),
                                              BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, ds.to(scale.dtype), db.to(scale.dtype)


def star_relu(x: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return StarReLU.apply(x, scale, bias)


def reference(x: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return scale * torch.relu(x) ** 2 + bias


spec = kcheck.Spec(
    name="star_relu_train",
    kernel=star_relu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="scale"),
            kcheck.Tensor("N", pattern="randn", name="bias")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=160, max=8192, real=())},
    grad=True,
)

"""Bias + sigmoid for training (a gating or output layer): y = sigmoid(x + b) with a per-feature bias b [N]
broadcast over the rows of x [M, N]. Triton forward and backward behind a torch.autograd.Function.

Backward, with g the upstream gradient and s = sigmoid(x + b) recomputed from the saved inputs::

    dx = g * s * (1 - s)
    db = sum over rows of dx

Both kernels are 2-D tile kernels (1-D grid over the tiles, any strides, int64 offsets). In the backward each tile
writes its dx block and adds its column sums of dx into a zero-filled fp32 buffer with tl.atomic_add: tiles of
different row blocks share the same columns of db.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BLOCK_M = 32
BLOCK_N = 64


@triton.jit
def bias_sigmoid_fwd_kernel(x_ptr, b_ptr, y_ptr, M, N, tiles_n, sxm, sxn, sb, sym, syn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tm = pid // tiles_n
    tn = pid % tiles_n
    rows = tm * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tn * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * sb, mask=cmask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-(x + b[None, :])))
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, s.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def bias_sigmoid_bwd_kernel(g_ptr, x_ptr, b_ptr, dx_ptr, db_ptr, M, N, tiles_n, sgm, sgn, sxm, sxn, sb, sdm, sdn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tm = pid // tiles_n
    tn = pid % tiles_n
    rows = tm * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tn * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * sb, mask=cmask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-(x + b[None, :])))
    dx = tl.where(mask, g * s * (1.0 - s), 0.0)
    tl.store(dx_ptr + rows[:, None] * sdm + cols[None, :] * sdn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(db_ptr + cols, tl.sum(dx, axis=0), mask=cmask)


def _tiles(M: int, N: int) -> tuple[int, int]:
    tiles_n = triton.cdiv(N, BLOCK_N)
    return tiles_n, triton.cdiv(M, BLOCK_M) * tiles_n


def bias_sigmoid_forward(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        tiles_n, programs = _tiles(M, N)
        bias_sigmoid_fwd_kernel[(programs,)](x, b, y, M, N, tiles_n, x.stride(0), x.stride(1), b.stride(0),
                                             y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def bias_sigmoid_backward(g: torch.Tensor, x: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    db = torch.zeros((N,), dtype=torch.float32, device=x.device)
    if M and N:
        tiles_n, programs = _tiles(M, N)
        bias_sigmoid_bwd_kernel[(programs,)](g, x, b, dx, db, M, N, tiles_n, g.stride(0), g.stride(1), x.stride(0),
                                             x.stride(1), b.stride(0), dx.stride(0), dx.stride(1),
                                             BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, db.to(b.dtype)


class BiasSigmoidFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, b)
        return bias_sigmoid_forward(x, b)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, b = ctx.saved_tensors
        return bias_sigmoid_backward(g, x, b)


def bias_sigmoid(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return BiasSigmoidFunction.apply(x, b)


def reference(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(x + b)


BUG_CLASS = "missing-atomic"

spec = kcheck.Spec(
    name="hx23_bias_sigmoid_train",
    kernel=bias_sigmoid,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="bias")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=160, real=())},
    grad=True,
)

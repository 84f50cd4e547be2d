"""Planted bug: the RMSNorm weight gradient keeps the first program's partial sum and drops the other programs'
rows (the accumulation over rows is missing). Correct while one program covers every row (M <= BLOCK_M); wrong
at the nominal size, in ``grad of input 1 (weight)`` only: the forward and dx are right."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6
TILE = 4096  # elements per program: BLOCK_M rows of BLOCK_N columns


@triton.jit
def rmsnorm_fwd_kernel(x_ptr, w_ptr, y_ptr, rstd_ptr, M, N, eps, stride_xm, stride_xn, stride_w, stride_ym,
                       stride_yn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    col_mask = cols < N
    mask = row_mask[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / N + eps)
    w = tl.load(w_ptr + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32)
    y = x * rstd[:, None] * w[None, :]
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(rstd_ptr + rows, rstd, mask=row_mask)


@triton.jit
def rmsnorm_bwd_kernel(g_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, dw_part_ptr, M, N, stride_gm, stride_gn, stride_xm,
                       stride_xn, stride_w, stride_dxm, stride_dxn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    col_mask = cols < N
    mask = row_mask[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * stride_gm + cols[None, :] * stride_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + rows, mask=row_mask, other=0.0)
    gw = g * w[None, :]
    c = tl.sum(gw * x, axis=1) / N
    dx = rstd[:, None] * (gw - x * (rstd * rstd * c)[:, None])
    tl.store(dx_ptr + rows[:, None] * stride_dxm + cols[None, :] * stride_dxn, dx.to(dx_ptr.dtype.element_ty),
             mask=mask)
    dw = tl.sum(g * x * rstd[:, None], axis=0)  # this program's rows; masked rows contribute 0
    tl.store(dw_part_ptr + pid * N + cols, dw, mask=col_mask)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


def rmsnorm_forward(x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M == 0 or N == 0:
        return y, rstd.fill_(1.0 / EPS ** 0.5)
    block_m, block_n, programs = _blocks(M, N)
    rmsnorm_fwd_kernel[(programs,)](x, w, y, rstd, M, N, EPS, x.stride(0), x.stride(1), w.stride(0), y.stride(0),
                                    y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return y, rstd


def rmsnorm_backward(g: torch.Tensor, x: torch.Tensor, w: torch.Tensor,
                     rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(w)
    block_m, block_n, programs = _blocks(M, N)
    dw_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
    rmsnorm_bwd_kernel[(programs,)](g, x, w, rstd, dx, dw_part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                    x.stride(1), w.stride(0), dx.stride(0), dx.stride(1),
                                    BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dw_part[0].to(w.dtype)  # BUG: dw_part.sum(0)


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        y, rstd = rmsnorm_forward(x, w)
        ctx.save_for_backward(x, w, rstd)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, w, rstd = ctx.saved_tensors
        return rmsnorm_backward(g, x, w, rstd)


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


spec = kcheck.Spec(
    name="rmsnorm_dw_one_program",
    kernel=RMSNormFunction.apply,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="weight")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, max=8192, real=())},
    reduce=["N"],
    grad=True,
)

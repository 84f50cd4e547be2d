"""ScaleNorm for training (Nguyen & Salazar 2019, "Transformers without Tears"): each row is scaled to length g,
a single learned scalar, with the norm floored at eps. Triton forward and backward behind an autograd Function.

    y = g * x / max(||x||_2, eps)

Backward, with s = 1 / max(||x||, eps) saved by the forward and gy the upstream gradient:

    dx = g * s * gy - g * s^3 * (gy . x) * x      (the second term only where ||x|| > eps)
    dg = sum over all rows of (gy . x) * s

Rows fit one block (N <= 8192), BLOCK_M rows per program; each backward program writes its share of dg to its own
slot of an fp32 buffer, summed afterwards (deterministic).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"

EPS = 1e-5
TILE = 4096


@triton.jit
def scalenorm_fwd_kernel(x_ptr, g_ptr, y_ptr, s_ptr, M, N, eps, s_xm, s_xn, s_ym, s_yn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr).to(tl.float32)
    ss = tl.sum(x * x, axis=1)
    inv = 1.0 / tl.sqrt(ss)
    y = x * (g * inv)[:, None]
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + rows, inv, mask=row_mask)


@triton.jit
def scalenorm_bwd_kernel(gy_ptr, x_ptr, g_ptr, s_ptr, dx_ptr, dg_part_ptr, M, N, eps, s_gm, s_gn, s_xm, s_xn,
                         s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    gy = tl.load(gy_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr).to(tl.float32)
    inv = tl.load(s_ptr + rows, mask=row_mask, other=0.0)
    active = inv < 1.0 / eps  # the norm was above eps: it depends on x
    c = tl.sum(gy * x, axis=1)
    corr = tl.where(active, g * inv * inv * inv * c, 0.0)
    dx = (g * inv)[:, None] * gy - corr[:, None] * x
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    dg = tl.sum(tl.where(row_mask, c * inv, 0.0), axis=0)
    tl.store(dg_part_ptr + pid, dg)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


def scalenorm_forward(x: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    s = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M == 0:
        return y, s
    block_m, block_n, programs = _blocks(M, N)
    scalenorm_fwd_kernel[(programs,)](x, g, y, s, M, N, EPS, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                      BLOCK_M=block_m, BLOCK_N=block_n)
    return y, s


def scalenorm_backward(gy: torch.Tensor, x: torch.Tensor, g: torch.Tensor,
                       s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0:
        return dx, torch.zeros_like(g)
    block_m, block_n, programs = _blocks(M, N)
    dg_part = torch.empty((programs,), dtype=torch.float32, device=x.device)
    scalenorm_bwd_kernel[(programs,)](gy, x, g, s, dx, dg_part, M, N, EPS, gy.stride(0), gy.stride(1), x.stride(0),
                                      x.stride(1), dx.stride(0), dx.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dg_part.sum().reshape(g.shape).to(g.dtype)


class ScaleNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        y, s = scalenorm_forward(x, g)
        ctx.save_for_backward(x, g, s)
        return y

    @staticmethod
    def backward(ctx: Any, gy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, g, s = ctx.saved_tensors
        return scalenorm_backward(gy, x, g, s)


def scalenorm(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return ScaleNormFunction.apply(x, g)


def reference(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return g * x / x.pow(2).sum(-1, keepdim=True).clamp(min=EPS * EPS).sqrt()


spec = kcheck.Spec(
    name="hx39_scalenorm_train",
    kernel=scalenorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor(1, pattern="randn", name="g")],
    # a one-feature row normalizes to +-g: its gradient is zero up to rounding, nothing a tolerance can judge
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, min=2, max=8192, real=())},
    reduce=["N"],
    grad=True,
)

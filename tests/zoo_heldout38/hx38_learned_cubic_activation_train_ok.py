"""Learned cubic activation (ML layer, a polynomial activation with per-feature coefficients), for training:

    y = a[n] * x + b[n] * x^2 + c[n] * x^3

Backward, with g the upstream gradient::

    dx = g * (a + 2 b x + 3 c x^2)
    da = sum over rows of g * x,   db = sum over rows of g * x^2,   dc = sum over rows of g * x^3

Rows fit one block (N <= 8192, several rows per program), fp32 arithmetic. Each backward program writes its rows'
partial coefficient gradients to its own slice of a [3, programs, N] fp32 buffer, summed afterwards:
deterministic, no atomics. int64 offsets, any strides.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

TILE = 4096


@triton.jit
def cubic_fwd_kernel(x_ptr, a_ptr, b_ptr, c_ptr, y_ptr, M, N, sxm, sxn, sa, sb, sc, sym, syn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * sa, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    b = tl.load(b_ptr + cols * sb, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    c = tl.load(c_ptr + cols * sc, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    y = a * x + b * x * x + c * x * x * x
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def cubic_bwd_kernel(g_ptr, x_ptr, a_ptr, b_ptr, c_ptr, dx_ptr, part_ptr, M, N, sgm, sgn, sxm, sxn, sa, sb, sc,
                     sdm, sdn, spk, spp, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * sa, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    b = tl.load(b_ptr + cols * sb, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    c = tl.load(c_ptr + cols * sc, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    dx = g * (a + 2.0 * b * x + 3.0 * c * x * x)
    tl.store(dx_ptr + rows[:, None] * sdm + cols[None, :] * sdn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    gx = tl.where(mask, g * x, 0.0)
    gx2 = gx * x
    gx3 = gx2 * x
    part_a = part_ptr + pid * spp + cols
    part_b = part_a + spk
    part_c = part_b + spk
    tl.store(part_a, tl.sum(gx, axis=0), mask=col_mask)
    tl.store(part_b, tl.sum(tl.where(mask, gx2, 0.0), axis=0), mask=col_mask)
    tl.store(part_c, tl.sum(tl.where(mask, gx3, 0.0), axis=0), mask=col_mask)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


def cubic_forward(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_m, block_n, programs = _blocks(M, N)
    cubic_fwd_kernel[(programs,)](x, a, b, c, y, M, N, x.stride(0), x.stride(1), a.stride(0), b.stride(0),
                                  c.stride(0), y.stride(0), y.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def cubic_backward(g: torch.Tensor, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor,
                   c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(a), torch.zeros_like(b), torch.zeros_like(c)
    block_m, block_n, programs = _blocks(M, N)
    part = torch.empty((3, programs, N), dtype=torch.float32, device=x.device)
    cubic_bwd_kernel[(programs,)](g, x, a, b, c, dx, part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                  x.stride(1), a.stride(0), b.stride(0), c.stride(0), dx.stride(0), dx.stride(1),
                                  part.stride(0), part.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    sums = part.sum(1)
    return dx, sums[0].to(a.dtype), sums[1].to(b.dtype), sums[2].to(c.dtype)


class LearnedCubic(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, a, b, c)
        return cubic_forward(x, a, b, c)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return cubic_backward(g, *ctx.saved_tensors)


def learned_cubic(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    return LearnedCubic.apply(x, a, b, c)


def reference(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    return a * x + b * x * x + c * x * x * x


spec = kcheck.Spec(
    name="hx38_learned_cubic_activation_train_ok",
    kernel=learned_cubic,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="a"),
            kcheck.Tensor("N", pattern="randn", name="b"), kcheck.Tensor("N", pattern="randn", name="c")],
    dims={"M": kcheck.Dim(nominal=80, real=()), "N": kcheck.Dim(nominal=192, max=8192, real=())},
    grad=True,
)

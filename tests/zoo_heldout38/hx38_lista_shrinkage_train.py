"""Learned soft-threshold shrinkage (LISTA / learned sparse coding), for training: per channel c a learned
threshold theta[c] shrinks every coefficient of a [B, C, L] batch toward zero,

    y = sign(x) * max(|x| - theta[c], 0)

Backward, with g the upstream gradient and a = (|x| > theta[c]) the active set::

    dx        = g * sign(x)^2 * a                      (0 at x = 0, where sign is flat)
    dtheta[c] = -sum over b, l of g * sign(x) * a

(a NaN coefficient is outside the active set: its gradients are 0, as torch's are).

Rows (b, c) are taken BLOCK_R at a time, coefficients BLOCK_L at a time, any strides. Each backward program adds
its rows' partial threshold gradients (fp32) into a per-channel buffer with atomics; the buffer is cast to the
threshold's dtype at the end. The batch is small (B <= 8).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def _sign(x):
    # +1, -1, 0 at 0, NaN at NaN (x * 0.0 is 0 at 0 and NaN at NaN; infinities take the first two branches)
    return tl.where(x > 0.0, 1.0, tl.where(x < 0.0, -1.0, x * 0.0))


@triton.jit
def shrink_fwd_kernel(x_ptr, th_ptr, y_ptr, R, C, L, sxb, sxc, sxl, sth, syb, syc, syl,
                      BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    pid_r = tl.program_id(0).to(tl.int64)
    pid_l = tl.program_id(1).to(tl.int64)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = pid_l * BLOCK_L + tl.arange(0, BLOCK_L).to(tl.int64)
    row_mask = rows < R
    mask = row_mask[:, None] & (cols < L)[None, :]
    b = rows // C
    c = rows % C
    th = tl.load(th_ptr + c * sth, mask=row_mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + (b * sxb + c * sxc)[:, None] + cols[None, :] * sxl, mask=mask, other=0.0).to(tl.float32)
    a = tl.abs(x) - th[:, None]
    y = _sign(x) * tl.where(a > 0.0, a, tl.where(a == a, 0.0, a))
    tl.store(y_ptr + (b * syb + c * syc)[:, None] + cols[None, :] * syl, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def shrink_bwd_kernel(g_ptr, x_ptr, th_ptr, dx_ptr, dth_ptr, R, C, L, sgb, sgc, sgl, sxb, sxc, sxl, sth,
                      sdb, sdc, sdl, BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    pid_r = tl.program_id(0).to(tl.int64)
    pid_l = tl.program_id(1).to(tl.int64)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = pid_l * BLOCK_L + tl.arange(0, BLOCK_L).to(tl.int64)
    row_mask = rows < R
    mask = row_mask[:, None] & (cols < L)[None, :]
    b = rows // C
    c = rows % C
    th = tl.load(th_ptr + c * sth, mask=row_mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + (b * sxb + c * sxc)[:, None] + cols[None, :] * sxl, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + (b * sgb + c * sgc)[:, None] + cols[None, :] * sgl, mask=mask, other=0.0).to(tl.float32)
    s = _sign(x)
    active = tl.abs(x) - th[:, None] > 0.0
    ga = tl.where(active, g * s, 0.0)  # gradient reaching |x| - theta (0 off the active set, NaN x included)
    dx = tl.where(active, g * (s * s), 0.0)
    tl.store(dx_ptr + (b * sdb + c * sdc)[:, None] + cols[None, :] * sdl, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    part = -tl.sum(tl.where(mask, ga, 0.0), axis=1)
    tl.atomic_add(dth_ptr + c, part, mask=row_mask)


def _grid(R: int, L: int, BLOCK_L: int) -> tuple[int, int, tuple[int, int]]:
    block_l = min(BLOCK_L, triton.next_power_of_2(L))
    block_r = max(1, min(2048 // block_l, triton.next_power_of_2(R)))
    return block_r, block_l, (triton.cdiv(R, block_r), triton.cdiv(L, block_l))


def shrink_forward(x: torch.Tensor, theta: torch.Tensor, BLOCK_L: int) -> torch.Tensor:
    B, C, L = x.shape
    y = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    R = B * C
    if R == 0 or L == 0:
        return y
    block_r, block_l, grid = _grid(R, L, BLOCK_L)
    shrink_fwd_kernel[grid](x, theta, y, R, C, L, x.stride(0), x.stride(1), x.stride(2), theta.stride(0),
                            y.stride(0), y.stride(1), y.stride(2), BLOCK_R=block_r, BLOCK_L=block_l)
    return y


def shrink_backward(g: torch.Tensor, x: torch.Tensor, theta: torch.Tensor,
                    BLOCK_L: int) -> tuple[torch.Tensor, torch.Tensor]:
    B, C, L = x.shape
    dx = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    dth = torch.empty((C,), dtype=torch.float32, device=x.device)
    R = B * C
    if R == 0 or L == 0:
        return dx, dth.to(theta.dtype)
    block_r, block_l, grid = _grid(R, L, BLOCK_L)
    shrink_bwd_kernel[grid](g, x, theta, dx, dth, R, C, L, g.stride(0), g.stride(1), g.stride(2), x.stride(0),
                            x.stride(1), x.stride(2), theta.stride(0), dx.stride(0), dx.stride(1), dx.stride(2),
                            BLOCK_R=block_r, BLOCK_L=block_l)
    return dx, dth.to(theta.dtype)


class ShrinkFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, theta: torch.Tensor, BLOCK_L: int) -> torch.Tensor:
        ctx.save_for_backward(x, theta)
        ctx.block_l = BLOCK_L
        return shrink_forward(x, theta, BLOCK_L)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, theta = ctx.saved_tensors
        dx, dth = shrink_backward(g, x, theta, ctx.block_l)
        return dx, dth, None


def lista_shrink(x: torch.Tensor, theta: torch.Tensor, BLOCK_L: int = 128) -> torch.Tensor:
    return ShrinkFunction.apply(x, theta, BLOCK_L)


def reference(x: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.relu(x.abs() - theta[None, :, None])


spec = kcheck.Spec(
    name="hx38_lista_shrinkage_train",
    kernel=lista_shrink,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("C", pattern="randn", name="theta")],
    dims={"B": kcheck.Dim(nominal=4, max=8, real=()), "C": kcheck.Dim(nominal=24, real=()),
          "L": kcheck.Dim(nominal=160, real=())},
    configs=[{"BLOCK_L": 128}, {"BLOCK_L": 32}],
    grad=True,
)

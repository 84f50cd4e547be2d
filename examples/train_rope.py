"""Rotary position embedding (RoPE) for training: one Triton kernel rotates each pair (x[i], x[i + D/2]) of a
head by the position's angle; the backward is the same rotation by the opposite angle. Checked in both passes with
``Spec(grad=True)``.

With c = cos(theta), s = sin(theta) for position t and pair i (the table holds each angle twice, as the widely used
"rotate half" convention does)::

    forward:  y1 = x1 * c - x2 * s        backward:  dx1 = g1 * c + g2 * s
              y2 = x2 * c + x1 * s                   dx2 = g2 * c - g1 * s

The cos and sin tables are ``Custom`` inputs of declared shape [T, D] built from the positions (not drawn), so they
are not differentiated; x is [T, H, D] with D even, rows (t, h) taken BLOCK_R at a time, strides honoured.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BASE = 10000.0
TILE = 2048  # elements per program


@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, R, H, D, stride_xt, stride_xh, stride_xd, stride_ct, stride_cd,
                stride_st, stride_sd, stride_yt, stride_yh, stride_yd, SIGN: tl.constexpr, BLOCK_R: tl.constexpr,
                BLOCK_H: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    half = D // 2
    cols = tl.arange(0, BLOCK_H).to(tl.int64)
    mask = (rows < R)[:, None] & (cols < half)[None, :]
    t = rows // H
    h = rows % H
    x_row = (x_ptr + t * stride_xt + h * stride_xh)[:, None]
    y_row = (y_ptr + t * stride_yt + h * stride_yh)[:, None]
    x1 = tl.load(x_row + cols[None, :] * stride_xd, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_row + (cols + half)[None, :] * stride_xd, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(cos_ptr + t[:, None] * stride_ct + cols[None, :] * stride_cd, mask=mask, other=0.0).to(tl.float32)
    s = SIGN * tl.load(sin_ptr + t[:, None] * stride_st + cols[None, :] * stride_sd, mask=mask,
                       other=0.0).to(tl.float32)
    tl.store(y_row + cols[None, :] * stride_yd, (x1 * c - x2 * s).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_row + (cols + half)[None, :] * stride_yd, (x2 * c + x1 * s).to(y_ptr.dtype.element_ty), mask=mask)


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, sign: int) -> torch.Tensor:
    """Rotate every pair of ``x`` by the table's angle (``sign=1``) or its opposite (``sign=-1``)."""
    T, H, D = x.shape
    y = torch.empty((T, H, D), dtype=x.dtype, device=x.device)
    R = T * H
    if R == 0 or D == 0:
        return y
    block_h = triton.next_power_of_2(D // 2)
    block_r = max(1, min(TILE // block_h, triton.next_power_of_2(R)))
    rope_kernel[(triton.cdiv(R, block_r),)](
        x, cos, sin, y, R, H, D, x.stride(0), x.stride(1), x.stride(2), cos.stride(0), cos.stride(1),
        sin.stride(0), sin.stride(1), y.stride(0), y.stride(1), y.stride(2),
        SIGN=sign, BLOCK_R=block_r, BLOCK_H=block_h)
    return y


class RoPEFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(cos, sin)
        return rotate(x, cos, sin, 1)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        cos, sin = ctx.saved_tensors
        return rotate(g, cos, sin, -1), None, None


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    return RoPEFunction.apply(x, cos, sin)


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    rotated = torch.cat((-x2, x1), dim=-1)
    return x * cos[:, None, :] + rotated * sin[:, None, :]


def _angles(ctx: kcheck.CaseContext) -> torch.Tensor:
    """[T, D] angles t / BASE^(2i/D), each pair's angle twice (columns i and i + D/2), in float64 on the device."""
    T, D = ctx.dims["T"], ctx.dims["D"]
    inv_freq = BASE ** (-torch.arange(0, D, 2, dtype=torch.float64, device=ctx.device) / max(D, 1))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64, device=ctx.device), inv_freq)
    return torch.cat((freqs, freqs), dim=-1)


def cos_table(ctx: kcheck.CaseContext) -> torch.Tensor:
    return _angles(ctx).cos().to(ctx.dtype)


def sin_table(ctx: kcheck.CaseContext) -> torch.Tensor:
    return _angles(ctx).sin().to(ctx.dtype)


spec = kcheck.Spec(
    name="train_rope",
    kernel=rope,
    reference=reference,
    inputs=[kcheck.Tensor("T", "H", "D", name="x"), kcheck.Custom(cos_table, name="cos", dims=("T", "D")),
            kcheck.Custom(sin_table, name="sin", dims=("T", "D"))],
    dims={"T": kcheck.Dim(nominal=32, real=()), "H": kcheck.Dim(nominal=3, max=3, real=()),
          "D": kcheck.Dim(nominal=64, multiple_of=2, max=64, real=())},
    grad=True,
)

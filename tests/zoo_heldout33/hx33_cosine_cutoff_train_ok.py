"""Smooth cosine cutoff of edge messages in a message-passing interatomic potential (SchNet / ANI style), for
training: each edge's feature vector is damped by the cutoff of its length r::

    y[e, f] = x[e, f] * fc(r[e]),   fc(r) = (cos(pi r / rc) + 1) / 2  for r < rc,   0 beyond

Backward, with g the upstream gradient and fc'(r) = -(pi / (2 rc)) sin(pi r / rc) for r < rc, 0 beyond::

    dx[e, f] = g * fc(r[e]),     dr[e] = fc'(r[e]) * sum over f of g * x[e, f]

The cutoff radius rc is a mode. Forward and backward are Triton kernels over BLOCK_E edges of one block of
features each (F <= 256), fp32 arithmetic, strides honoured.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

TILE = 4096  # elements per program


@triton.jit
def cutoff_fwd_kernel(x_ptr, r_ptr, y_ptr, E, F, rc, stride_xe, stride_xf, stride_r, stride_ye, stride_yf,
                      BLOCK_E: tl.constexpr, BLOCK_F: tl.constexpr):
    edges = tl.program_id(0).to(tl.int64) * BLOCK_E + tl.arange(0, BLOCK_E).to(tl.int64)
    feats = tl.arange(0, BLOCK_F).to(tl.int64)
    e_mask = edges < E
    mask = e_mask[:, None] & (feats < F)[None, :]
    r = tl.load(r_ptr + edges * stride_r, mask=e_mask, other=0.0).to(tl.float32)
    fc = tl.where(r < rc, 0.5 * (tl.cos(r * (3.141592653589793 / rc)) + 1.0), 0.0)
    x = tl.load(x_ptr + edges[:, None] * stride_xe + feats[None, :] * stride_xf, mask=mask, other=0.0)
    y = x.to(tl.float32) * fc[:, None]
    tl.store(y_ptr + edges[:, None] * stride_ye + feats[None, :] * stride_yf, y.to(y_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def cutoff_bwd_kernel(g_ptr, x_ptr, r_ptr, dx_ptr, dr_ptr, E, F, rc, stride_ge, stride_gf, stride_xe, stride_xf,
                      stride_r, stride_de, stride_df, stride_dr, BLOCK_E: tl.constexpr, BLOCK_F: tl.constexpr):
    edges = tl.program_id(0).to(tl.int64) * BLOCK_E + tl.arange(0, BLOCK_E).to(tl.int64)
    feats = tl.arange(0, BLOCK_F).to(tl.int64)
    e_mask = edges < E
    mask = e_mask[:, None] & (feats < F)[None, :]
    r = tl.load(r_ptr + edges * stride_r, mask=e_mask, other=0.0).to(tl.float32)
    inside = r < rc
    phase = r * (3.141592653589793 / rc)
    fc = tl.where(inside, 0.5 * (tl.cos(phase) + 1.0), 0.0)
    dfc = tl.where(inside, -(1.5707963267948966 / rc) * tl.sin(phase), 0.0)
    g = tl.load(g_ptr + edges[:, None] * stride_ge + feats[None, :] * stride_gf, mask=mask, other=0.0)
    x = tl.load(x_ptr + edges[:, None] * stride_xe + feats[None, :] * stride_xf, mask=mask, other=0.0)
    g = g.to(tl.float32)
    tl.store(dx_ptr + edges[:, None] * stride_de + feats[None, :] * stride_df,
             (g * fc[:, None]).to(dx_ptr.dtype.element_ty), mask=mask)
    gx = tl.sum(g * x.to(tl.float32), axis=1)
    tl.store(dr_ptr + edges * stride_dr, (dfc * gx).to(dr_ptr.dtype.element_ty), mask=e_mask)


def _blocks(E: int, F: int) -> tuple[int, int]:
    block_f = triton.next_power_of_2(max(F, 1))
    block_e = max(1, min(TILE // block_f, triton.next_power_of_2(max(E, 1))))
    return block_e, block_f


class CosineCutoffFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, r: torch.Tensor, cutoff: float) -> torch.Tensor:
        E, F = x.shape
        y = torch.empty((E, F), dtype=x.dtype, device=x.device)
        if E and F:
            block_e, block_f = _blocks(E, F)
            cutoff_fwd_kernel[(triton.cdiv(E, block_e),)](x, r, y, E, F, float(cutoff), x.stride(0), x.stride(1),
                                                          r.stride(0), y.stride(0), y.stride(1),
                                                          BLOCK_E=block_e, BLOCK_F=block_f)
        ctx.save_for_backward(x, r)
        ctx.cutoff = float(cutoff)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, r = ctx.saved_tensors
        E, F = x.shape
        dx = torch.empty((E, F), dtype=x.dtype, device=x.device)
        dr = torch.empty((E,), dtype=r.dtype, device=r.device)
        if E == 0:
            return dx, dr, None
        if F == 0:
            return dx, dr.zero_(), None
        block_e, block_f = _blocks(E, F)
        cutoff_bwd_kernel[(triton.cdiv(E, block_e),)](g, x, r, dx, dr, E, F, ctx.cutoff, g.stride(0), g.stride(1),
                                                      x.stride(0), x.stride(1), r.stride(0), dx.stride(0),
                                                      dx.stride(1), dr.stride(0), BLOCK_E=block_e, BLOCK_F=block_f)
        return dx, dr, None


def cosine_cutoff(x: torch.Tensor, r: torch.Tensor, cutoff: float = 5.0) -> torch.Tensor:
    return CosineCutoffFunction.apply(x, r, cutoff)


def reference(x: torch.Tensor, r: torch.Tensor, cutoff: float = 5.0) -> torch.Tensor:
    fc = torch.where(r < cutoff, 0.5 * (torch.cos(r * (math.pi / cutoff)) + 1), torch.zeros_like(r))
    return x * fc[:, None]


spec = kcheck.Spec(
    name="cosine_cutoff_train",
    kernel=cosine_cutoff,
    reference=reference,
    inputs=[kcheck.Tensor("E", "F", name="messages"), kcheck.Tensor("E", name="distances")],
    dims={"E": kcheck.Dim(nominal=256, real=()), "F": kcheck.Dim(nominal=64, max=256, real=())},
    reduce=["F"],
    params={"cutoff": [5.0, 2.5]},
    grad=True,
)

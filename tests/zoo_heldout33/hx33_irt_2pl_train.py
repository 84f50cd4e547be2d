"""Two-parameter logistic item response model (2PL IRT) for training: the probability that person p answers item
i correctly, from the person's ability theta[p] and the item's discrimination a[i] and difficulty b[i]::

    P[p, i] = 1 / (1 + exp(-z)),   z = a[i] * (theta[p] - b[i])

Backward, with g the upstream gradient and h = g * P * (1 - P)::

    dtheta[p] = sum over i of h * a[i]
    da[i]     = sum over p of h * (theta[p] - b[i])
    db[i]     = -a[i] * sum over p of h

A 2-D grid of [BLOCK_P, BLOCK_I] tiles in both passes; the backward recomputes P in fp32 and writes each tile's
partial sums to its own slot of fp32 buffers, summed afterwards in a fixed order (no atomics: deterministic).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"

BLOCK_P = 32
BLOCK_I = 32


@triton.jit
def irt_fwd_kernel(theta_ptr, a_ptr, b_ptr, prob_ptr, P, I, stride_t, stride_a, stride_b, stride_pp, stride_pi,
                   BLOCK_P: tl.constexpr, BLOCK_I: tl.constexpr):
    pp = tl.program_id(0).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    ii = tl.program_id(1).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)
    p_mask = pp < P
    i_mask = ii < I
    theta = tl.load(theta_ptr + pp * stride_t, mask=p_mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + ii * stride_a, mask=i_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + ii * stride_b, mask=i_mask, other=0.0).to(tl.float32)
    z = a[None, :] * (theta[:, None] - b[None, :])
    prob = tl.exp(z) / (1.0 + tl.exp(z))
    tl.store(prob_ptr + pp[:, None] * stride_pp + ii[None, :] * stride_pi, prob.to(prob_ptr.dtype.element_ty),
             mask=p_mask[:, None] & i_mask[None, :])


@triton.jit
def irt_bwd_kernel(g_ptr, theta_ptr, a_ptr, b_ptr, dtheta_part_ptr, da_part_ptr, hsum_part_ptr, P, I,
                   stride_gp, stride_gi, stride_t, stride_a, stride_b,
                   BLOCK_P: tl.constexpr, BLOCK_I: tl.constexpr):
    pid_p = tl.program_id(0).to(tl.int64)
    pid_i = tl.program_id(1).to(tl.int64)
    pp = pid_p * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    ii = pid_i * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)
    p_mask = pp < P
    i_mask = ii < I
    mask = p_mask[:, None] & i_mask[None, :]
    theta = tl.load(theta_ptr + pp * stride_t, mask=p_mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + ii * stride_a, mask=i_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + ii * stride_b, mask=i_mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + pp[:, None] * stride_gp + ii[None, :] * stride_gi, mask=mask, other=0.0).to(tl.float32)
    diff = theta[:, None] - b[None, :]
    prob = 1.0 / (1.0 + tl.exp(-(a[None, :] * diff)))
    h = tl.where(mask, g * prob * (1.0 - prob), 0.0)
    tl.store(dtheta_part_ptr + pid_i * P + pp, tl.sum(h * a[None, :], axis=1), mask=p_mask)
    tl.store(da_part_ptr + pid_p * I + ii, tl.sum(h * tl.where(mask, diff, 0.0), axis=0), mask=i_mask)
    tl.store(hsum_part_ptr + pid_p * I + ii, tl.sum(h, axis=0), mask=i_mask)


def irt_forward(theta: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    P, I = theta.shape[0], a.shape[0]
    prob = torch.empty((P, I), dtype=theta.dtype, device=theta.device)
    if P and I:
        grid = (triton.cdiv(P, BLOCK_P), triton.cdiv(I, BLOCK_I))
        irt_fwd_kernel[grid](theta, a, b, prob, P, I, theta.stride(0), a.stride(0), b.stride(0), prob.stride(0),
                             prob.stride(1), BLOCK_P=BLOCK_P, BLOCK_I=BLOCK_I)
    return prob


def irt_backward(g: torch.Tensor, theta: torch.Tensor, a: torch.Tensor,
                 b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    P, I = theta.shape[0], a.shape[0]
    if P == 0 or I == 0:
        return torch.zeros_like(theta), torch.zeros_like(a), torch.zeros_like(b)
    tiles_p, tiles_i = triton.cdiv(P, BLOCK_P), triton.cdiv(I, BLOCK_I)
    f32 = dict(dtype=torch.float32, device=theta.device)
    dtheta_part = torch.empty((tiles_i, P), **f32)
    da_part = torch.empty((tiles_p, I), **f32)
    hsum_part = torch.empty((tiles_p, I), **f32)
    irt_bwd_kernel[(tiles_p, tiles_i)](g, theta, a, b, dtheta_part, da_part, hsum_part, P, I, g.stride(0),
                                       g.stride(1), theta.stride(0), a.stride(0), b.stride(0),
                                       BLOCK_P=BLOCK_P, BLOCK_I=BLOCK_I)
    dtheta = dtheta_part.sum(0)
    da = da_part.sum(0)
    db = -a.float() * hsum_part.sum(0)
    return dtheta.to(theta.dtype), da.to(a.dtype), db.to(b.dtype)


class IRT2PLFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, theta: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(theta, a, b)
        return irt_forward(theta, a, b)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        theta, a, b = ctx.saved_tensors
        return irt_backward(g, theta, a, b)


def irt_2pl(theta: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return IRT2PLFunction.apply(theta, a, b)


def reference(theta: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(a[None, :] * (theta[:, None] - b[None, :]))


spec = kcheck.Spec(
    name="irt_2pl_train",
    kernel=irt_2pl,
    reference=reference,
    inputs=[kcheck.Tensor("P", name="ability"), kcheck.Tensor("I", name="discrimination"),
            kcheck.Tensor("I", name="difficulty")],
    dims={"P": kcheck.Dim(nominal=96, real=()), "I": kcheck.Dim(nominal=40, real=())},
    grad=True,
)

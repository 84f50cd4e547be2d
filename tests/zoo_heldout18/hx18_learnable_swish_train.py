"""Swish with a learnable per-feature slope (Ramachandran et al., "Searching for Activation Functions"), for
training: y = x * sigmoid(beta * x), x: (M, N), beta: (N,).

Forward: one Triton kernel over BLOCK_M x BLOCK_N tiles, fp32 arithmetic. Backward, with s = sigmoid(beta * x)
and g the upstream gradient:

    dx    = g * (s + beta * x * s * (1 - s))
    dbeta = sum over rows of g * x^2 * s * (1 - s)

Each backward program writes dx for its tile and adds its column partial sums of dbeta into an fp32 buffer with
tl.atomic_add; the buffer is cast to beta's dtype at the end.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def swish_fwd_kernel(x_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_b, s_ym, s_yn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * s_xm + rn[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    beta = tl.load(b_ptr + rn * s_b, mask=rn < N, other=0.0).to(tl.float32)
    y = x * tl.sigmoid(beta[None, :] * x)
    tl.store(y_ptr + rm[:, None] * s_ym + rn[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def swish_bwd_kernel(g_ptr, x_ptr, b_ptr, dx_ptr, db_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_b, s_dm, s_dn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    g = tl.load(g_ptr + rm[:, None] * s_gm + rn[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rm[:, None] * s_xm + rn[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    beta = tl.load(b_ptr + rn * s_b, mask=rn < N, other=0.0).to(tl.float32)
    s = tl.sigmoid(beta[None, :] * x)
    ds = s * (1.0 - s)
    dx = g * (s + beta[None, :] * x * ds)
    tl.store(dx_ptr + rm[:, None] * s_dm + rn[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    db = tl.sum(tl.where(mask, g * x * x * ds, 0.0), axis=0)
    tl.atomic_add(db_ptr + rn, db, mask=rn < N)


def _grid(M, N, BLOCK_M, BLOCK_N):
    return (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))


class LearnableSwish(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, beta, BLOCK_M=32, BLOCK_N=64):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            swish_fwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](x, beta, y, M, N, x.stride(0), x.stride(1),
                                                            beta.stride(0), y.stride(0), y.stride(1),
                                                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, beta)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g):
        x, beta = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        dbeta = torch.empty((N,), dtype=torch.float32, device=x.device)
        if M and N:
            swish_bwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](g, x, beta, dx, dbeta, M, N, g.stride(0), g.stride(1),
                                                            x.stride(0), x.stride(1), beta.stride(0),
                                                            dx.stride(0), dx.stride(1),
                                                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dbeta.to(beta.dtype), None, None


def learnable_swish(x, beta, BLOCK_M=32, BLOCK_N=64):
    return LearnableSwish.apply(x, beta, BLOCK_M, BLOCK_N)


def reference(x, beta):
    return x * torch.sigmoid(beta * x)


BUG_CLASS = "uninitialized-accumulator"

spec = kcheck.Spec(
    name="hx18_learnable_swish_train",
    kernel=learnable_swish,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="beta")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 16, "BLOCK_N": 128}],
    grad=True,
)

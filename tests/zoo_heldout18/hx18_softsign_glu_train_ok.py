"""Softsign-gated linear unit for training: x: (M, 2H) split into a value half a = x[:, :H] and a gate half
g = x[:, H:],

    y = a * softsign(g),   softsign(g) = g / (1 + |g|)

Forward and backward are Triton kernels behind a torch.autograd.Function, one BLOCK_M x BLOCK_H tile per program,
fp32 arithmetic. With dy the upstream gradient:

    da = dy * softsign(g),   dg = dy * a / (1 + |g|)^2

written into the two halves of dx.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def ssglu_fwd_kernel(x_ptr, y_ptr, M, H, s_xm, s_xn, s_ym, s_yn, BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rh = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    mask = (rm[:, None] < M) & (rh[None, :] < H)
    a = tl.load(x_ptr + rm[:, None] * s_xm + rh[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(x_ptr + rm[:, None] * s_xm + (rh[None, :] + H) * s_xn, mask=mask, other=0.0).to(tl.float32)
    y = a * (g / (1.0 + tl.abs(g)))
    tl.store(y_ptr + rm[:, None] * s_ym + rh[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def ssglu_bwd_kernel(dy_ptr, x_ptr, dx_ptr, M, H, s_dym, s_dyn, s_xm, s_xn, s_dxm, s_dxn,
                     BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rh = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    mask = (rm[:, None] < M) & (rh[None, :] < H)
    dy = tl.load(dy_ptr + rm[:, None] * s_dym + rh[None, :] * s_dyn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(x_ptr + rm[:, None] * s_xm + rh[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(x_ptr + rm[:, None] * s_xm + (rh[None, :] + H) * s_xn, mask=mask, other=0.0).to(tl.float32)
    den = 1.0 + tl.abs(g)
    da = dy * (g / den)
    dg = dy * a / (den * den)
    tl.store(dx_ptr + rm[:, None] * s_dxm + rh[None, :] * s_dxn, da.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dx_ptr + rm[:, None] * s_dxm + (rh[None, :] + H) * s_dxn, dg.to(dx_ptr.dtype.element_ty), mask=mask)


class SoftsignGLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, BLOCK_M=32, BLOCK_H=64):
        M, H2 = x.shape
        H = H2 // 2
        y = torch.empty((M, H), dtype=x.dtype, device=x.device)
        if M and H:
            ssglu_fwd_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(H, BLOCK_H))](
                x, y, M, H, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_H=BLOCK_H)
        ctx.save_for_backward(x)
        ctx.blocks = (BLOCK_M, BLOCK_H)
        return y

    @staticmethod
    def backward(ctx: Any, dy):
        (x,) = ctx.saved_tensors
        BLOCK_M, BLOCK_H = ctx.blocks
        M, H2 = x.shape
        H = H2 // 2
        dx = torch.empty((M, H2), dtype=x.dtype, device=x.device)
        if M and H:
            ssglu_bwd_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(H, BLOCK_H))](
                dy, x, dx, M, H, dy.stride(0), dy.stride(1), x.stride(0), x.stride(1), dx.stride(0), dx.stride(1),
                BLOCK_M=BLOCK_M, BLOCK_H=BLOCK_H)
        return dx, None, None


def softsign_glu(x, BLOCK_M=32, BLOCK_H=64):
    return SoftsignGLU.apply(x, BLOCK_M, BLOCK_H)


def reference(x):
    a, g = x.chunk(2, dim=-1)
    return a * torch.nn.functional.softsign(g)


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx18_softsign_glu_train_ok",
    kernel=softsign_glu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "H2", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "H2": kcheck.Dim(nominal=256, multiple_of=2)},
    configs=[{"BLOCK_M": 32, "BLOCK_H": 64}, {"BLOCK_M": 16, "BLOCK_H": 128}],
    grad=True,
    # inf inputs: autograd of the reference adds inf - inf terms (NaN) where the closed-form gradient is finite
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)

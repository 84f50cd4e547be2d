"""ReZero residual connection for training: y = x + alpha * h, with alpha a learned scalar (initialised at 0 in a
ReZero network), Triton forward and backward behind a torch.autograd.Function.

Backward, with g the upstream gradient: dx = g, dh = alpha * g, dalpha = sum(g * h) over every element. Each
program sums its BLOCK_M x BLOCK_N tile's g * h in fp32 and adds it to a one-element fp32 accumulator with
tl.atomic_add; the accumulator is cast to alpha's dtype at the end. Any strides, int64 offsets.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def rezero_fwd_kernel(x_ptr, h_ptr, a_ptr, y_ptr, M, N, s_xm, s_xn, s_hm, s_hn, s_ym, s_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=mask, other=0.0).to(tl.float32)
    alpha = tl.load(a_ptr).to(tl.float32)
    y = x + alpha * h
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rezero_bwd_kernel(g_ptr, h_ptr, a_ptr, dx_ptr, dh_ptr, da_ptr, M, N, s_gm, s_gn, s_hm, s_hn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=mask, other=0.0).to(tl.float32)
    alpha = tl.load(a_ptr).to(tl.float32)
    out_offs = rows[:, None] * N + cols[None, :]  # dx, dh: contiguous
    tl.store(dx_ptr + out_offs, g.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dh_ptr + out_offs, (alpha * g).to(dh_ptr.dtype.element_ty), mask=mask)
    partial = tl.sum(tl.sum(tl.where(mask, g * h, 0.0), axis=1), axis=0)
    tl.atomic_add(da_ptr, partial)


def _grid(M, N, BLOCK_M, BLOCK_N):
    return (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))


def rezero_forward(x, h, alpha, BLOCK_M=16, BLOCK_N=64):
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        rezero_fwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](x, h, alpha, y, M, N, x.stride(0), x.stride(1),
                                                         h.stride(0), h.stride(1), y.stride(0), y.stride(1),
                                                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def rezero_backward(g, h, alpha, BLOCK_M=16, BLOCK_N=64):
    M, N = h.shape
    dx = torch.empty((M, N), dtype=h.dtype, device=h.device)
    dh = torch.empty((M, N), dtype=h.dtype, device=h.device)
    dalpha = torch.empty((1,), dtype=torch.float32, device=h.device)
    if M and N:
        rezero_bwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](g, h, alpha, dx, dh, dalpha, M, N, g.stride(0),
                                                         g.stride(1), h.stride(0), h.stride(1),
                                                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx, dh, dalpha.to(alpha.dtype)


class ReZeroFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x, h, alpha):
        ctx.save_for_backward(h, alpha)
        return rezero_forward(x, h, alpha)

    @staticmethod
    def backward(ctx: Any, g):
        h, alpha = ctx.saved_tensors
        return rezero_backward(g, h, alpha)


def rezero_residual(x, h, alpha):
    return ReZeroFunction.apply(x, h, alpha)


def reference(x, h, alpha):
    return x + alpha * h


spec = kcheck.Spec(
    name="rezero_residual_train",
    kernel=rezero_residual,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="h"),
            kcheck.Tensor(1, pattern="randn", name="alpha")],
    dims={"M": kcheck.Dim(nominal=48, real=()), "N": kcheck.Dim(nominal=160, real=())},
    grad=True,
)

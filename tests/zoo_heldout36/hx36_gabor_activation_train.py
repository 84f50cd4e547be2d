"""Audio/vision feature layer, for training: a Gabor activation with a learned frequency per feature,

    y = exp(-x^2 / 2) * cos(w * x)
    dx = g * exp(-x^2 / 2) * (-x * cos(w x) - w * sin(w x))
    dw = sum over rows of g * exp(-x^2 / 2) * (-x * sin(w x))

Forward: [BLOCK_M, BLOCK_N] tiles in fp32. Backward: one program per block of BLOCK_N features writes dx and
walks the rows in BLOCK_M chunks, accumulating dw in the dtype of the fp32 buffer it writes (one program per
feature block: deterministic, no atomics). Strides honoured, int64 offsets."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def gabor_fwd_kernel(x_ptr, w_ptr, y_ptr, M, N, s_xm, s_xn, s_w, s_ym, s_yn, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cols < N, other=0.0).to(tl.float32)
    y = tl.exp(-0.5 * x * x) * tl.cos(w[None, :] * x)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gabor_bwd_kernel(g_ptr, x_ptr, w_ptr, dx_ptr, dw_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_w, s_dm, s_dn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_n = tl.program_id(0).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    w = tl.load(w_ptr + cols * s_w, mask=col_mask, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK_N], dtype=dw_ptr.dtype.element_ty)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        mask = (rows < M)[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
        env = g * tl.exp(-0.5 * x * x)
        wx = w[None, :] * x
        c = tl.cos(wx)
        s = tl.sin(wx)
        dx = env * (-x * c - w[None, :] * s)
        tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        acc += tl.sum(tl.where(mask, -env * x * s, 0.0), axis=0).to(dw_ptr.dtype.element_ty)
    tl.store(dw_ptr + cols, acc, mask=col_mask)


def _blocks(N: int) -> tuple[int, int]:
    return 16, min(64, triton.next_power_of_2(max(N, 1)))


class GaborActivation(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            block_m, block_n = _blocks(N)
            grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
            gabor_fwd_kernel[grid](x, w, y, M, N, x.stride(0), x.stride(1), w.stride(0), y.stride(0), y.stride(1),
                                   BLOCK_M=block_m, BLOCK_N=block_n)
        ctx.save_for_backward(x, w)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, w = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        dw = torch.empty((N,), dtype=x.dtype, device=x.device)
        if N == 0:
            return dx, dw.to(w.dtype)
        if M == 0:
            return dx, dw.zero_().to(w.dtype)
        block_m, block_n = _blocks(N)
        gabor_bwd_kernel[(triton.cdiv(N, block_n),)](g, x, w, dx, dw, M, N, g.stride(0), g.stride(1), x.stride(0),
                                                    x.stride(1), w.stride(0), dx.stride(0), dx.stride(1),
                                                    BLOCK_M=block_m, BLOCK_N=block_n)
        return dx, dw.to(w.dtype)


def gabor_activation(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return GaborActivation.apply(x, w)


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.exp(-0.5 * x * x) * torch.cos(w * x)


spec = kcheck.Spec(
    name="hx36_gabor_activation_train",
    kernel=gabor_activation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="freq")],
    dims={"M": kcheck.Dim(nominal=512, max=8192, real=()), "N": kcheck.Dim(nominal=96, max=1024, real=())},
    grad=True,
)

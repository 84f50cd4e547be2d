"""Charbonnier (pseudo-Huber L1) loss for training, elementwise with no reduction:

    loss = sqrt((pred - target)^2 + eps^2),   eps = 1e-3

Backward: d loss / d pred = (pred - target) / loss = -d loss / d target.
The forward kernel reads pred and target through their own strides (BLOCK_M x BLOCK_N tiles, int64 row offsets)
and writes a contiguous loss; the backward kernel works on contiguous tensors.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-3


@triton.jit
def charbonnier_fwd_kernel(p_ptr, t_ptr, out_ptr, M, N, spm, spn, stm, stn, eps,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    p = tl.load(p_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + rows[:, None] * stm + cols[None, :] * stn, mask=mask, other=0.0).to(tl.float32)
    d = p - t
    loss = tl.sqrt(d * d + eps * eps)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], loss.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def charbonnier_bwd_kernel(g_ptr, p_ptr, t_ptr, dp_ptr, dt_ptr, n, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = p - t
    grad = g * d / tl.sqrt(d * d + eps * eps)
    tl.store(dp_ptr + offs, grad.to(dp_ptr.dtype.element_ty), mask=mask)
    tl.store(dt_ptr + offs, (-grad).to(dt_ptr.dtype.element_ty), mask=mask)


BLOCK_M, BLOCK_N, BLOCK = 16, 64, 1024


class CharbonnierFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        M, N = pred.shape
        out = torch.empty((M, N), dtype=pred.dtype, device=pred.device)
        if M and N:
            grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
            charbonnier_fwd_kernel[grid](pred, target, out, M, N, pred.stride(0), pred.stride(1), target.stride(0),
                                         target.stride(1), EPS, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(pred, target)
        return out

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor):
        pred, target = ctx.saved_tensors
        g, p, t = g.contiguous(), pred.contiguous(), target.contiguous()
        dp = torch.empty_like(p)
        dt = torch.empty_like(t)
        n = p.numel()
        if n:
            charbonnier_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, p, t, dp, dt, n, EPS, BLOCK=BLOCK)
        return dp, dt


def charbonnier_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return CharbonnierFunction.apply(pred, target)


def reference(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    d = pred - target
    return torch.sqrt(d * d + EPS * EPS)


spec = kcheck.Spec(
    name="charbonnier_loss_train",
    kernel=charbonnier_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=32, max=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    grad=True,
)

BUG_CLASS = "stride-assumption"

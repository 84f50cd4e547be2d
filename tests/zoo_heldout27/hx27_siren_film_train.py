"""FiLM-conditioned sine activation for training (SIREN-style implicit networks): y = sin(gamma * x + beta), with
a learned per-feature frequency gamma[N] and phase beta[N]; Triton forward and backward behind an autograd
Function.

Backward, with a = gamma * x + beta and g the upstream gradient:
dx = g cos(a) gamma,  dgamma = sum over rows of g cos(a) x,  dbeta = sum over rows of g cos(a)

Each backward program writes its partial dgamma / dbeta rows to its own row of a scratch buffer, summed after
(deterministic). Rows fit one block. Large-magnitude inputs are left out of the patterns: sin of an argument of
hundreds of radians is ill-conditioned (the fp32 rounding of the argument alone changes the result).
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'stride-assumption'


@triton.jit
def film_sine_fwd_kernel(x_ptr, g_ptr, b_ptr, y_ptr, M, N, s_xm, s_xn, s_g, s_b, s_ym, s_yn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    gam = tl.load(g_ptr + cols * s_g, mask=cm, other=0.0).to(tl.float32)
    bet = tl.load(b_ptr + cols * s_b, mask=cm, other=0.0).to(tl.float32)
    y = tl.sin(x * gam[None, :] + bet[None, :])
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def film_sine_bwd_kernel(go_ptr, x_ptr, g_ptr, b_ptr, dx_ptr, part_ptr, M, N, s_om, s_on, s_xm, s_xn, s_g, s_b,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    go = tl.load(go_ptr + rows[:, None] * s_om + cols[None, :] * s_on, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    gam = tl.load(g_ptr + cols * s_g, mask=cm, other=0.0).to(tl.float32)
    bet = tl.load(b_ptr + cols * s_b, mask=cm, other=0.0).to(tl.float32)
    gc = tl.where(mask, go * tl.cos(x * gam[None, :] + bet[None, :]), 0.0)
    tl.store(dx_ptr + rows[:, None] * N + cols[None, :], (gc * gam[None, :]).to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(part_ptr + pid * 2 * N + cols, tl.sum(gc * x, axis=0), mask=cm)
    tl.store(part_ptr + pid * 2 * N + N + cols, tl.sum(gc, axis=0), mask=cm)


def _blocks(M: int, N: int):
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class FiLMSine(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            bm, bn, progs = _blocks(M, N)
            film_sine_fwd_kernel[(progs,)](x, gamma, beta, y, M, N, N, 1, gamma.stride(0),
                                           beta.stride(0), y.stride(0), y.stride(1), BLOCK_M=bm, BLOCK_N=bn)
        ctx.save_for_backward(x, gamma, beta)
        return y

    @staticmethod
    def backward(ctx: Any, go: torch.Tensor):
        x, gamma, beta = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(gamma), torch.zeros_like(beta)
        bm, bn, progs = _blocks(M, N)
        part = torch.empty((progs, 2, N), dtype=torch.float32, device=x.device)
        film_sine_bwd_kernel[(progs,)](go, x, gamma, beta, dx, part, M, N, go.stride(0), go.stride(1), x.stride(0),
                                       x.stride(1), gamma.stride(0), beta.stride(0), BLOCK_M=bm, BLOCK_N=bn)
        sums = part.sum(0)
        return dx, sums[0].to(gamma.dtype), sums[1].to(beta.dtype)


def film_sine(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return FiLMSine.apply(x, gamma, beta)


def reference(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return torch.sin(gamma * x + beta)


spec = kcheck.Spec(
    name="hx27_siren_film_train",
    kernel=film_sine,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="gamma"),
            kcheck.Tensor("N", pattern="randn", name="beta")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=128, max=2048, real=())},
    patterns=["randn", "zeros", "ones", "eye", "arange", "tiny", "nonfinite", "constant"],
    grad=True,
)

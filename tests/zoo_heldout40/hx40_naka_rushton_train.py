"""Naka-Rushton contrast response with a learned semi-saturation per channel (neuroscience), for training.

r[m, n] = x^2 / (x^2 + sigma[n]^2) for inputs x [M, N] and the [N] semi-saturation constants sigma (exponent 2).
With d = x^2 + sigma^2 the backward gives::

    dx     = g * 2 x sigma^2 / d^2
    dsigma = sum over rows of -g * 2 sigma x^2 / d^2

Triton forward and backward on 2-D tiles in fp32. The backward's programs each reduce dsigma over their own rows
and add the partial into a zeroed fp32 [N] buffer with atomics (several row blocks share each channel).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def naka_rushton_fwd_kernel(x_ptr, s_ptr, r_ptr, M, N, s_xm, s_xn, s_s, s_rm, s_rn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    sig = tl.load(s_ptr + cols * s_s, mask=col_mask, other=1.0).to(tl.float32)
    x2 = x * x
    r = x2 / (x2 + (sig * sig)[None, :])
    tl.store(r_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, r.to(r_ptr.dtype.element_ty), mask=mask)


@triton.jit
def naka_rushton_bwd_kernel(g_ptr, x_ptr, s_ptr, dx_ptr, ds_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_s, s_dm, s_dn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    sig = tl.load(s_ptr + cols * s_s, mask=col_mask, other=1.0).to(tl.float32)
    s2 = (sig * sig)[None, :]
    x2 = x * x
    d = x2 + s2
    inv_d2 = 1.0 / (d * d)
    dx = (2.0 * g * s2 * inv_d2) * x
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    ds = tl.where(mask, -g * 2.0 * sig[None, :] * x2 * inv_d2, 0.0)
    tl.store(ds_ptr + cols, tl.sum(ds, axis=0), mask=col_mask)


def _grid(M: int, N: int, block_m: int, block_n: int) -> tuple[int, int]:
    return triton.cdiv(M, block_m), triton.cdiv(N, block_n)


def naka_rushton_forward(x: torch.Tensor, sigma: torch.Tensor, block_m: int = 16, block_n: int = 64) -> torch.Tensor:
    M, N = x.shape
    r = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        naka_rushton_fwd_kernel[_grid(M, N, block_m, block_n)](x, sigma, r, M, N, x.stride(0), x.stride(1),
                                                               sigma.stride(0), r.stride(0), r.stride(1),
                                                               BLOCK_M=block_m, BLOCK_N=block_n)
    return r


def naka_rushton_backward(g: torch.Tensor, x: torch.Tensor, sigma: torch.Tensor, block_m: int = 16,
                          block_n: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    dsigma = torch.zeros((N,), dtype=torch.float32, device=x.device)
    if M and N:
        naka_rushton_bwd_kernel[_grid(M, N, block_m, block_n)](g, x, sigma, dx, dsigma, M, N, g.stride(0),
                                                               g.stride(1), x.stride(0), x.stride(1),
                                                               sigma.stride(0), dx.stride(0), dx.stride(1),
                                                               BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dsigma.to(sigma.dtype)


class NakaRushton(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, sigma)
        return naka_rushton_forward(x, sigma)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, sigma = ctx.saved_tensors
        return naka_rushton_backward(g, x, sigma)


def naka_rushton(x: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    return NakaRushton.apply(x, sigma)


def reference(x: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    x2 = x * x
    return x2 / (x2 + sigma * sigma)


spec = kcheck.Spec(
    name="hx40_naka_rushton_train",
    kernel=naka_rushton,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="sigma")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=160, real=())},
    grad=True,
)

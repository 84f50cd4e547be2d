"""SmeLU (smooth ReLU, Shamir et al. 2020) for training, with half-width beta as a mode:

    y = 0                        for x <= -beta
    y = (x + beta)^2 / (4 beta)  for |x| < beta
    y = x                        for x >= beta

and dy/dx = 0, (x + beta) / (2 beta), 1 on the same pieces. Forward and backward are Triton kernels tiling the
[M, N] input on a 1-D grid (any strides, int64 offsets, fp32 math), behind a torch.autograd.Function.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

BLOCK_M = 16
BLOCK_N = 128


@triton.jit
def smelu_fwd_kernel(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, beta, n_col_tiles,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_col_tiles) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = (pid % n_col_tiles) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    q = (x + beta) * (x + beta) / (4.0 * beta)
    y = tl.where(x >= beta, x, tl.where(x <= -beta, 0.0, q))
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def smelu_bwd_kernel(g_ptr, x_ptr, dx_ptr, M, N, sgm, sgn, sxm, sxn, sdm, sdn, beta, n_col_tiles,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_col_tiles) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = (pid % n_col_tiles) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
    d = tl.where(x >= beta, 1.0, tl.where(x <= -beta, 0.0, (x + beta) / (2.0 * beta)))
    tl.store(dx_ptr + rows[:, None] * sdm + cols[None, :] * sdn, (g * d).to(dx_ptr.dtype.element_ty), mask=mask)


def _grid(M: int, N: int) -> tuple[tuple[int], int]:
    n_col_tiles = triton.cdiv(N, BLOCK_N)
    return (triton.cdiv(M, BLOCK_M) * n_col_tiles,), n_col_tiles


class SmeLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, beta: float) -> torch.Tensor:
        ctx.save_for_backward(x)
        ctx.beta = beta
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid, n_col_tiles = _grid(M, N)
            smelu_fwd_kernel[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), beta, n_col_tiles,
                                   BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        (x,) = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid, n_col_tiles = _grid(M, N)
            smelu_bwd_kernel[grid](g, x, dx, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1), dx.stride(0),
                                   dx.stride(1), ctx.beta, n_col_tiles, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, None


def smelu(x: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    return SmeLU.apply(x, beta)


def reference(x: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    xs = torch.where(torch.isinf(x), torch.zeros_like(x), x)  # keeps inf out of the unused quadratic's gradient
    q = (xs + beta) ** 2 / (4.0 * beta)
    return torch.where(x >= beta, x, torch.where(x <= -beta, torch.zeros_like(x), q))


spec = kcheck.Spec(
    name="hx24_smelu_train_ok",
    kernel=smelu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    params={"beta": [1.0, 0.25]},
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=192)},
    grad=True,
)

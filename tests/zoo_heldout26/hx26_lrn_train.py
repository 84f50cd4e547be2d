"""Local response normalization across channels (Krizhevsky et al., as torch.nn.LocalResponseNorm) for training,
channels last: x is [M, C] (M positions), and with a window of SIZE channels

    S[m, c] = k + alpha / SIZE * sum of x[m, c']^2 over c - SIZE//2 <= c' <= c + (SIZE-1)//2  (inside [0, C))
    y[m, c] = x[m, c] * S[m, c]^(-beta)

    dx[m, j] = g[m, j] S[m, j]^(-beta)
               - (2 alpha beta / SIZE) x[m, j] * sum of g[m, c] x[m, c] S[m, c]^(-beta-1) over c whose window holds j

The forward keeps S (fp32) for the backward. BLOCK_M positions by all channels per program; the windows are sums of
SIZE shifted, masked loads. alpha is a mode (AlexNet's small value and a strong one).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"

SIZE = 5
BETA = 0.75
K = 1.0
TILE = 2048  # elements per program


@triton.jit
def lrn_fwd_kernel(x_ptr, y_ptr, s_ptr, M, C, alpha, beta, k, s_xm, s_xc, s_ym, s_yc,
                   SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_C).to(tl.int64)
    row_ok = (rows < M)[:, None]
    m = row_ok & (cols < C)[None, :]
    x_row = x_ptr + rows[:, None] * s_xm
    acc = tl.zeros([BLOCK_M, BLOCK_C], dtype=tl.float32)
    for d in tl.static_range(SIZE):
        cc = cols + (d - SIZE // 2)
        ok = row_ok & ((cc >= 0) & (cc <= C))[None, :]
        v = tl.load(x_row + cc[None, :] * s_xc, mask=ok, other=0.0).to(tl.float32)
        acc += v * v
    s = k + (alpha / SIZE) * acc
    x = tl.load(x_row + cols[None, :] * s_xc, mask=m, other=0.0).to(tl.float32)
    y = x * tl.exp2(-beta * tl.log2(s))
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yc, y.to(y_ptr.dtype.element_ty), mask=m)
    tl.store(s_ptr + rows[:, None] * C + cols[None, :], s, mask=m)


@triton.jit
def lrn_bwd_kernel(g_ptr, x_ptr, s_ptr, dx_ptr, M, C, alpha, beta, s_gm, s_gc, s_xm, s_xc, s_dm, s_dc,
                   SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_C).to(tl.int64)
    row_ok = (rows < M)[:, None]
    m = row_ok & (cols < C)[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_C], dtype=tl.float32)
    for d in tl.static_range(SIZE):
        cc = cols + (d - (SIZE - 1) // 2)  # the channels c whose window [c - SIZE//2, c + (SIZE-1)//2] holds j
        ok = row_ok & ((cc >= 0) & (cc < C))[None, :]
        g = tl.load(g_ptr + rows[:, None] * s_gm + cc[None, :] * s_gc, mask=ok, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows[:, None] * s_xm + cc[None, :] * s_xc, mask=ok, other=0.0).to(tl.float32)
        s = tl.load(s_ptr + rows[:, None] * C + cc[None, :], mask=ok, other=1.0)
        acc += g * x * tl.exp2((-beta - 1.0) * tl.log2(s))
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gc, mask=m, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xc, mask=m, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + rows[:, None] * C + cols[None, :], mask=m, other=1.0)
    dx = g * tl.exp2(-beta * tl.log2(s)) - (2.0 * alpha * beta / SIZE) * x * acc
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dc, dx.to(dx_ptr.dtype.element_ty), mask=m)


def _blocks(M: int, C: int) -> tuple[int, int, int]:
    block_c = triton.next_power_of_2(max(C, 1))
    block_m = max(1, min(TILE // block_c, triton.next_power_of_2(max(M, 1))))
    return block_m, block_c, triton.cdiv(M, block_m)


class LRN(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, alpha: float) -> torch.Tensor:
        M, C = x.shape
        y = torch.empty((M, C), dtype=x.dtype, device=x.device)
        s = torch.empty((M, C), dtype=torch.float32, device=x.device)
        if M and C:
            block_m, block_c, programs = _blocks(M, C)
            lrn_fwd_kernel[(programs,)](x, y, s, M, C, alpha, BETA, K, x.stride(0), x.stride(1), y.stride(0),
                                        y.stride(1), SIZE=SIZE, BLOCK_M=block_m, BLOCK_C=block_c)
        ctx.save_for_backward(x, s)
        ctx.alpha = alpha
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        x, s = ctx.saved_tensors
        M, C = x.shape
        dx = torch.empty((M, C), dtype=x.dtype, device=x.device)
        if M and C:
            block_m, block_c, programs = _blocks(M, C)
            lrn_bwd_kernel[(programs,)](g, x, s, dx, M, C, ctx.alpha, BETA, g.stride(0), g.stride(1), x.stride(0),
                                        x.stride(1), dx.stride(0), dx.stride(1), SIZE=SIZE, BLOCK_M=block_m,
                                        BLOCK_C=block_c)
        return dx, None


def local_response_norm(x: torch.Tensor, alpha: float = 0.5) -> torch.Tensor:
    return LRN.apply(x, alpha)


def reference(x: torch.Tensor, alpha: float = 0.5) -> torch.Tensor:
    sq = torch.nn.functional.pad(x * x, (SIZE // 2, (SIZE - 1) // 2))
    window = sq.unfold(-1, SIZE, 1).sum(-1)
    return x * (K + alpha / SIZE * window).pow(-BETA)


spec = kcheck.Spec(
    name="hx26_lrn_train",
    kernel=local_response_norm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="x")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "C": kcheck.Dim(nominal=96, max=2048, real=())},
    params={"alpha": [0.5, 1e-4]},
    grad=True,
)

"""LeCun's scaled hyperbolic tangent ("Efficient BackProp": f(x) = 1.7159 tanh(2x/3), chosen so that f(+-1) = +-1)
with a learned per-feature gain, for training:

    y = w * 1.7159 * tanh(2x / 3)
    dx = g * w * 1.7159 * (2/3) * (1 - tanh(2x/3)^2),    dw = sum over rows of g * 1.7159 * tanh(2x/3)

A Triton forward and a Triton backward behind a torch.autograd.Function. tanh is evaluated from exp(-2|z|) (odd
symmetry, no overflow), with its Taylor series below |z| = 0.1 where 1 - exp(-2|z|) would lose digits, and
1 - tanh^2 as 4 exp(-2|z|) / (1 + exp(-2|z|))^2 (no cancellation where tanh rounds to 1). The backward writes
each program's partial dw (fp32) to its own row of a [programs, N] buffer, summed afterwards (deterministic).
fp32 arithmetic, strides honoured, int64 offsets.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

BLOCK_M, BLOCK_N = 16, 64


@triton.jit
def _tanh(z):
    a = tl.abs(z)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    z2 = z * z
    series = z * (1.0 - z2 * (0.3333333333333333 - z2 * 0.13333333333333333))
    return tl.where(a < 0.1, series, tl.where(z < 0.0, -t, t))


@triton.jit
def _sech2(z):
    e = tl.exp(-2.0 * tl.abs(z))
    return 4.0 * e / ((1.0 + e) * (1.0 + e))  # 1 - tanh(z)^2 without cancelling where tanh(z) rounds to 1


@triton.jit
def lecun_tanh_fwd_kernel(x_ptr, w_ptr, y_ptr, M, N, s_xm, s_xn, s_w, s_ym, s_yn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cm, other=0.0).to(tl.float32)
    y = w[None, :] * 1.7519 * _tanh(0.6666666666666666 * x)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def lecun_tanh_bwd_kernel(g_ptr, x_ptr, w_ptr, dx_ptr, dw_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_w,
                          s_dm, s_dn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cm = cols < N
    mask = (rows < M)[:, None] & cm[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols * s_w, mask=cm, other=0.0).to(tl.float32)
    z = 0.6666666666666666 * x
    t = _tanh(z)
    dx = g * w[None, :] * (1.7159 * 0.6666666666666666) * _sech2(z)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    dw = tl.sum(g * 1.7159 * t, axis=0)
    tl.store(dw_part_ptr + pid_m * N + cols, dw, mask=cm)


class LeCunTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M and N:
            grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
            lecun_tanh_fwd_kernel[grid](x, w, y, M, N, x.stride(0), x.stride(1), w.stride(0), y.stride(0),
                                        y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, w)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, w = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        if M == 0 or N == 0:
            return dx, torch.zeros_like(w)
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        dw_part = torch.empty((grid[0], N), dtype=torch.float32, device=x.device)
        lecun_tanh_bwd_kernel[grid](g, x, w, dx, dw_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                                    w.stride(0), dx.stride(0), dx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, dw_part.sum(0).to(w.dtype)


def lecun_tanh(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return LeCunTanh.apply(x, w)


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return w * 1.7159 * torch.tanh(2.0 / 3.0 * x)


spec = kcheck.Spec(
    name="lecun_tanh_train",
    kernel=lecun_tanh,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="gain")],
    dims={"M": kcheck.Dim(nominal=80, real=()), "N": kcheck.Dim(nominal=192, max=8192, real=())},
    grad=True,
)

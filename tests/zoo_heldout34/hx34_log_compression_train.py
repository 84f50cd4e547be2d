"""Learnable log compression of a power spectrogram (an audio front end trained with the model):

    y[m, n] = log(1 + exp(a[n]) * x[m, n]^2),

x being [frames, bands] amplitudes and a[n] a learned log-gain per band (a few nats either way). With
u = exp(a) * x^2 and g the upstream gradient, the backward is

    dx = g * 2 exp(a) x / (1 + u),        da[n] = sum over frames of g * u / (1 + u).

Both passes are Triton kernels over [BLOCK_M, BLOCK_N] tiles; each backward program sums its frames' share of da
and adds it into an fp32 buffer with atomics (the tiles of one band column run in different programs).
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def log_compress_fwd_kernel(x_ptr, a_ptr, y_ptr, M, N, s_xm, s_xn, s_a, s_ym, s_yn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)
    u = tl.exp(a)[None, :] * x * x
    y = tl.log(1.0 + u)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def log_compress_bwd_kernel(g_ptr, x_ptr, a_ptr, dx_ptr, da_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_a, s_dm, s_dn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=cmask, other=0.0).to(tl.float32)
    gain = tl.exp(a)[None, :]
    u = gain * x * x
    dx = g * 2.0 * gain * x / (1.0 + u)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    share = tl.sum(tl.where(mask, g * u / (1.0 + u), 0.0), axis=0)
    tl.store(da_ptr + cols, share, mask=cmask)


def _grid(M: int, N: int, BLOCK_M: int, BLOCK_N: int) -> tuple[int, int]:
    return triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)


class LogCompression(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: torch.Tensor, BLOCK_M: int, BLOCK_N: int) -> torch.Tensor:
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        ctx.save_for_backward(x, a)
        ctx.blocks = (BLOCK_M, BLOCK_N)
        if M and N:
            log_compress_fwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](x, a, y, M, N, x.stride(0), x.stride(1),
                                                                    a.stride(0), y.stride(0), y.stride(1),
                                                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor):
        x, a = ctx.saved_tensors
        BLOCK_M, BLOCK_N = ctx.blocks
        M, N = x.shape
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        da = torch.zeros(N, dtype=torch.float32, device=x.device)
        if M and N:
            log_compress_bwd_kernel[_grid(M, N, BLOCK_M, BLOCK_N)](g, x, a, dx, da, M, N, g.stride(0), g.stride(1),
                                                                    x.stride(0), x.stride(1), a.stride(0),
                                                                    dx.stride(0), dx.stride(1),
                                                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return dx, da.to(a.dtype), None, None


def log_compression(x: torch.Tensor, a: torch.Tensor, BLOCK_M: int = 32, BLOCK_N: int = 64) -> torch.Tensor:
    return LogCompression.apply(x, a, BLOCK_M, BLOCK_N)


def reference(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    return torch.log1p(torch.exp(a) * x * x)


spec = kcheck.Spec(
    name="log_compression_train",
    kernel=log_compression,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="log_gain")],
    dims={"M": kcheck.Dim(nominal=100, real=()), "N": kcheck.Dim(nominal=80, real=(), large=False)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 16, "BLOCK_N": 32}],
    grad=True,
)

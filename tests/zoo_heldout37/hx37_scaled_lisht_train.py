"""Scaled LiSHT activation for training (linearly scaled hyperbolic tangent with a learned per-feature slope):

    y = x * tanh(a * x)          x: [M, N] activations, a: [N] slopes

Triton forward and backward behind a torch.autograd.Function. With t = tanh(a x) and sech^2 = 1 - t^2:

    dx = g * (t + a x sech^2(a x))
    da = sum over rows of g * x^2 * sech^2(a x)

tanh is computed from e = exp(-2|z|) (t = (1 - e) / (1 + e) with z's sign, its Taylor series for small |z|;
sech^2 = 4 e / (1 + e)^2: no overflow, no 1 - t^2 cancellation for large |z|). The backward works on square
BLOCK x BLOCK tiles; each row of tiles writes its partial da (fp32) to its own row of a [tiles_m, N] buffer, summed
afterwards (deterministic, no atomics).
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def _tanh_sech2(z):
    """tanh(z) and sech(z)^2 in fp32, from e = exp(-2|z|); below |z| = 0.125 tanh is its Taylor series to z^9
    ((1 - e) / (1 + e) loses digits there, and underflows to 0 for subnormal z)."""
    e = tl.exp(-2.0 * tl.abs(z))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(z < 0, -t, t)
    z2 = z * z
    series = z * (1.0 + z2 * (-0.3333333333333333 + z2 * (0.13333333333333333 + z2 * (-0.05396825396825397
                                                                                        + z2 * 0.021869488536155203))))
    t = tl.where(tl.abs(z) < 0.125, series, t)
    sech2 = 4.0 * e / ((1.0 + e) * (1.0 + e))
    return t, sech2


@triton.jit
def lisht_fwd_kernel(x_ptr, a_ptr, y_ptr, M, N, s_xm, s_xn, s_a, s_ym, s_yn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=col_mask, other=0.0).to(tl.float32)
    t, _ = _tanh_sech2(a[None, :] * x)
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, (x * t).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def lisht_bwd_kernel(g_ptr, x_ptr, a_ptr, dx_ptr, da_part_ptr, M, N, s_gm, s_gn, s_xm, s_xn, s_a, s_dm, s_dn,
                     BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_n = tl.cdiv(N, BLOCK)
    pid_m = pid // tiles_n
    rows = pid_m * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    cols = (pid % tiles_n) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols * s_a, mask=col_mask, other=0.0).to(tl.float32)
    z = a[:, None] * x
    t, sech2 = _tanh_sech2(z)
    dx = g * (t + z * sech2)
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    da = tl.sum(tl.where(mask, g * x * x * sech2, 0.0), axis=0)
    tl.store(da_part_ptr + pid_m * N + cols, da, mask=col_mask)


def lisht_forward(x: torch.Tensor, a: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    lisht_fwd_kernel[grid](x, a, y, M, N, x.stride(0), x.stride(1), a.stride(0), y.stride(0), y.stride(1),
                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def lisht_backward(g: torch.Tensor, x: torch.Tensor, a: torch.Tensor,
                   BLOCK: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(a)
    tiles_m = triton.cdiv(M, BLOCK)
    da_part = torch.empty((tiles_m, N), dtype=torch.float32, device=x.device)
    lisht_bwd_kernel[(tiles_m * triton.cdiv(N, BLOCK),)](
        g, x, a, dx, da_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1), a.stride(0),
        dx.stride(0), dx.stride(1), BLOCK=BLOCK)
    return dx, da_part.sum(0).to(a.dtype)


class ScaledLiSHT(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, a)
        return lisht_forward(x, a)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, a = ctx.saved_tensors
        return lisht_backward(g, x, a)


def scaled_lisht(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    return ScaledLiSHT.apply(x, a)


def reference(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    return x * torch.tanh(a * x)


spec = kcheck.Spec(
    name="hx37_scaled_lisht_train",
    kernel=scaled_lisht,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="a")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=96, real=())},
    grad=True,
)

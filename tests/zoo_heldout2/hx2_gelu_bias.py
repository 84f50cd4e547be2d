"""Fused bias + GELU (tanh approximation) after a linear layer: y = gelu_tanh(x + b[col]), on 2-D tiles, fp32 math.
tanh(u) is computed as 2 sigmoid(2u) - 1 (saturates cleanly at both ends)."""

import math

import torch
import triton
import triton.language as tl

import kcheck

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@triton.jit
def gelu_bias_kernel(x_ptr, b_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_b, k0,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols * stride_b, mask=col_mask, other=0.0)
    v = x.to(tl.float32) + b.to(tl.float32)[None, :]
    u = k0 * (v + 0.044715 * v * v * v)
    t = 2.0 * tl.sigmoid(2.0 * u) - 1.0
    y = 0.5 * v * (1.0 + t)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def gelu_bias(x, b, BLOCK_M=8, BLOCK_N=128):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), N // BLOCK_N)
        gelu_bias_kernel[grid](x, b, out, M, N, x.stride(0), x.stride(1), b.stride(0), SQRT_2_OVER_PI,
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx2_gelu_bias",
    kernel=gelu_bias,
    reference=lambda x, b: torch.nn.functional.gelu(x + b, approximate="tanh"),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 16, "BLOCK_N": 64}],
)

BUG_CLASS = "tail-tile-dropped"

"""RetNet-style decayed causal mask applied to attention scores: out[i, j] = x[i, j] * gamma**(i - j) for j <= i,
0 above the diagonal. 2-D grid of BLOCK_M x BLOCK_N tiles, strided input, output in the input dtype."""

import math

import torch
import triton
import triton.language as tl

import kcheck

GAMMA = 0.96875


@triton.jit
def decay_mask_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, log2_gamma,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
    dist = (rows[:, None] - cols[None, :]).to(tl.float32)
    keep = dist >= 0
    decay = tl.exp2(tl.where(keep, dist, 0.0) * log2_gamma)
    y = tl.where(keep, x.to(tl.float32) * decay, 0.0)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def retention_decay_mask(x: torch.Tensor, BLOCK_M: int = 32, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (M // BLOCK_M, triton.cdiv(N, BLOCK_N))
    decay_mask_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), math.log2(GAMMA),
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    i = torch.arange(M, dtype=torch.float64)[:, None]
    j = torch.arange(N, dtype=torch.float64)[None, :]
    keep = j <= i
    decay = torch.where(keep, GAMMA ** (i - j).clamp(min=0), 0.0)
    return torch.where(keep, x * decay, 0.0)


spec = kcheck.Spec(
    name="hx9_retention_decay_mask",
    kernel=retention_decay_mask,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 32}],
)

BUG_CLASS = 'tail-tile-dropped'  # the planted class (from the README's table), for benchmarks/zoo.py

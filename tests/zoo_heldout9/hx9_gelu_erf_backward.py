"""Backward of the exact (erf) GELU: dx = g * (Phi(x) + x * phi(x)), Phi the standard normal CDF
0.5 * (1 + erf(x / sqrt 2)) and phi its density exp(-x^2 / 2) / sqrt(2 pi). Elementwise over [M, N] with a 2-D grid
of row blocks and column blocks, strided inputs, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gelu_bwd_kernel(g_ptr, x_ptr, dx_ptr, M, N, stride_gm, stride_xm, stride_dm,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * stride_gm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    cdf = 0.5 * (1.0 + tl.erf(x * 0.7071067811865476))
    pdf = 0.7978845608028654 * tl.exp(-0.5 * x * x)
    dx = g * (cdf + x * pdf)
    tl.store(dx_ptr + rows[:, None] * stride_dm + cols[None, :], dx.to(dx_ptr.dtype.element_ty), mask=mask)


def gelu_erf_backward(g: torch.Tensor, x: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    if g.stride(1) != 1:
        g = g.contiguous()
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gelu_bwd_kernel[grid](g, x, dx, M, N, g.stride(0), x.stride(0), dx.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dx


def reference(g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    cdf = 0.5 * (1 + torch.erf(x / 2 ** 0.5))
    pdf = torch.exp(-0.5 * x * x) / (2 * torch.pi) ** 0.5
    return g * (cdf + x * pdf)


spec = kcheck.Spec(
    name="hx9_gelu_erf_backward",
    kernel=gelu_erf_backward,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="grad_out"), kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 64}],
)

BUG_CLASS = 'wrong-constant'  # the planted class (from the README's table), for benchmarks/zoo.py

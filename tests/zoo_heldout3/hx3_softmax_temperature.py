"""Softmax with a temperature over the last dimension, p = softmax(x / T), as used when sampling from logits.
Each program normalizes BLOCK_M rows held in one BLOCK_N-wide tile (rows up to 16384), max-subtracted, in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softmax_t_kernel(x_ptr, out_ptr, M, N, inv_t, stride_xm, stride_xn, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=-float("inf"))
    z = x.to(tl.float32) * inv_t
    z = z - tl.max(z, axis=1)[:, None]
    e = tl.where(mask, tl.exp(z), 0.0)
    p = e / tl.sum(e, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, p.to(out_ptr.dtype.element_ty),
             mask=mask)


def softmax_temperature(x: torch.Tensor, temperature: float, TILE: int = 8192) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = N
    block_m = max(1, min(TILE // block_n, 16))
    softmax_t_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, 1.0 / temperature, x.stride(0), x.stride(1),
                                                 out.stride(0), out.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx3_softmax_temperature",
    kernel=softmax_temperature,
    reference=lambda x, temperature: torch.softmax(x / temperature, dim=-1),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Scalar(0.7)],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, max=16384)},
    reduce=["N"],
    configs=[{"TILE": 8192}, {"TILE": 2048}],
)

BUG_CLASS = "kernel-raises"

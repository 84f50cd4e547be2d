"""Batched transpose of the last two dimensions: out[b] = x[b].T for x of shape (B, M, N), into a fresh contiguous
(B, N, M) tensor (what `x.transpose(1, 2).contiguous()` gives). Tiles of BLOCK_M x BLOCK_N are read through x's
strides and written transposed, one program per (tile, batch)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, stride_xb, stride_xm, stride_xn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    b = tl.program_id(2).to(tl.int64)
    offs_m = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + b * stride_xb + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    out_base = out_ptr + b * M * N
    tl.store(out_base + offs_n[None, :] * N + offs_m[:, None], x, mask=mask)


def batched_transpose(x: torch.Tensor, BLOCK_M: int = 64, BLOCK_N: int = 64) -> torch.Tensor:
    B, M, N = x.shape
    out = torch.empty((B, N, M), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), B)
    transpose_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), x.stride(2), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx3_batched_transpose",
    kernel=batched_transpose,
    reference=lambda x: x.transpose(1, 2).contiguous(),
    inputs=[kcheck.Tensor("B", "M", "N")],
    dims={"B": kcheck.Dim(nominal=4), "M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_M": 64, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 128}],
)

BUG_CLASS = "index-transposition"

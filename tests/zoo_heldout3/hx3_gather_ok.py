"""Gather along the last dimension, `torch.gather(x, 1, index)`: out[m, j] = x[m, index[m, j]] for x (M, N) and
index (M, J) with values in [0, N) (e.g. picking the logits of candidate tokens). Tiles of about TILE elements
(BLOCK_J columns, as many rows as fit), int64 offsets, any strides."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gather_kernel(x_ptr, idx_ptr, out_ptr, M, J, stride_xm, stride_xn, stride_im, stride_ij, stride_om, stride_oj,
                  BLOCK_M: tl.constexpr, BLOCK_J: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_J + tl.arange(0, BLOCK_J)
    mask = (rows[:, None] < M) & (cols[None, :] < J)
    idx = tl.load(idx_ptr + rows[:, None] * stride_im + cols[None, :] * stride_ij, mask=mask, other=0).to(tl.int64)
    v = tl.load(x_ptr + rows[:, None] * stride_xm + idx * stride_xn, mask=mask)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_oj, v, mask=mask)


def gather(x: torch.Tensor, index: torch.Tensor, BLOCK_J: int = 128, TILE: int = 4096) -> torch.Tensor:
    M, J = index.shape
    out = torch.empty((M, J), dtype=x.dtype, device=x.device)
    if M == 0 or J == 0:
        return out
    block_j = min(BLOCK_J, triton.next_power_of_2(J))
    block_m = max(1, min(TILE // block_j, triton.next_power_of_2(M)))
    grid = (triton.cdiv(M, block_m), triton.cdiv(J, block_j))
    gather_kernel[grid](x, index, out, M, J, x.stride(0), x.stride(1), index.stride(0), index.stride(1),
                        out.stride(0), out.stride(1), BLOCK_M=block_m, BLOCK_J=block_j)
    return out


spec = kcheck.Spec(
    name="hx3_gather_ok",
    kernel=gather,
    reference=lambda x, index: torch.gather(x, 1, index),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Index("M", "J", high="N", name="index")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024), "J": kcheck.Dim(nominal=64)},
    configs=[{"BLOCK_J": 128}, {"BLOCK_J": 32}],
)

BUG_CLASS = None

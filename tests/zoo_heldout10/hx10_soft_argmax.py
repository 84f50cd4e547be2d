"""Soft-argmax over the last dimension (keypoint heads): out[m] = sum_n softmax(x[m])_n * n / (N - 1), the expected
position in [0, 1] (0 when N == 1).

One program per BLOCK_M rows, the whole row in one tile; weights exp(x) in fp32, normalized by their sum.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def soft_argmax_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, step,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :].to(tl.int64) * stride_n, mask=mask,
                other=-float("inf")).to(tl.float32)
    w = tl.exp(x)
    w = tl.where(mask, w, 0.0)
    pos = cols.to(tl.float32) * step
    y = tl.sum(w * pos[None, :], axis=1) / tl.sum(w, axis=1)
    tl.store(out_ptr + rows, y.to(out_ptr.dtype.element_ty), mask=row_mask)


def soft_argmax(x: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    step = 1.0 / (N - 1) if N > 1 else 0.0
    soft_argmax_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), step,
                                                  BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    pos = torch.linspace(0.0, 1.0, x.shape[-1], dtype=x.dtype, device=x.device)
    return (torch.softmax(x, dim=-1) * pos).sum(-1)


spec = kcheck.Spec(
    name="hx10_soft_argmax",
    kernel=soft_argmax,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512, min=1)},
    reduce=["N"],
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

BUG_CLASS = "exp-overflow"

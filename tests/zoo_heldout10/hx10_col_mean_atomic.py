"""Column mean over the rows (a batch mean per feature): out[n] = sum_m x[m, n] / M.

A 2-D grid of BLOCK_M x BLOCK_N tiles; each program sums its tile over the rows in fp32 and adds partial / M into
the fp32 output with an atomic add. The launcher writes into the output buffer it is given.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def col_mean_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, inv_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
    part = tl.sum(x.to(tl.float32), axis=0) * inv_m
    tl.atomic_add(out_ptr + cols, part, mask=col_mask)


def col_mean(x: torch.Tensor, out: torch.Tensor, BLOCK_M: int = 64, BLOCK_N: int = 128) -> None:
    M, N = x.shape
    if M == 0:
        out.fill_(float("nan"))
        return
    if N == 0:
        return
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    col_mean_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), 1.0 / M, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)


spec = kcheck.Spec(
    name="hx10_col_mean_atomic",
    kernel=col_mean,
    reference=lambda x: x.mean(0).float(),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("N", dtype=torch.float32)],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=256)},
    reduce=["M"],
    configs=[{"BLOCK_M": 64, "BLOCK_N": 128}, {"BLOCK_M": 16, "BLOCK_N": 32}],
)

BUG_CLASS = "uninitialized-accumulator"

"""Column means of a matrix: out[n] = mean over rows of x[:, n]. A 2-D grid of BLOCK_M x BLOCK_N tiles; each tile
adds its partial sum / M into an fp32 buffer with tl.atomic_add; the buffer is cast to the input dtype at the end."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def column_mean_kernel(x_ptr, acc_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0).to(tl.float32)
    part = tl.sum(x, axis=0) / M
    tl.atomic_add(acc_ptr + cols, part, mask=cols < N)


def column_mean(x: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    acc = torch.empty((N,), dtype=torch.float32, device=x.device)
    if N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        column_mean_kernel[grid](x, acc, M, N, x.stride(0), x.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return acc.to(x.dtype)


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.mean(0)


spec = kcheck.Spec(
    name="hx21_column_mean",
    kernel=column_mean,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=48, min=1, max=64, real=()), "N": kcheck.Dim(nominal=512, max=4096)},
    reduce=["M"],
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 8, "BLOCK_N": 64}],
)
BUG_CLASS = "uninitialized-accumulator"

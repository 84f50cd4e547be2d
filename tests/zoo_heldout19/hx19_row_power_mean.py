"""Power mean (generalised mean, p = 3) of magnitudes per row, a pooling used for descriptors:
y[m] = (mean_n |x[m, n]|^3)^(1/3).

x is [M, N] with N <= 8192 (a row fits one block; the block is N rounded up to a power of two, as tl.arange
requires); each program reduces BLOCK_M rows in fp32; the cube root is exp(log(.) / 3), which maps 0 to 0."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def power_mean_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_xn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    a = tl.abs(tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask,
                       other=0.0).to(tl.float32))
    m = tl.sum(a * a * a, axis=1) / N
    y = tl.exp(tl.log(m) / 3.0)
    tl.store(y_ptr + rows, y.to(y_ptr.dtype.element_ty), mask=row_mask)


def row_power_mean(x: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return y
    block_n = N
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    power_mean_kernel[(triton.cdiv(M, block_m),)](x, y, M, N, x.stride(0), x.stride(1),
                                                  BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.abs().pow(3).mean(-1).pow(1.0 / 3.0)


spec = kcheck.Spec(
    name="hx19_row_power_mean",
    kernel=row_power_mean,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512, min=1, max=8192)},
    reduce=["N"],
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

"""Column sums (the bias gradient of a linear layer: db = dy.sum(0)) of an (M, N) tensor. Each program owns BLOCK_N
columns and walks down the rows in BLOCK_M chunks, accumulating in fp32; the result is stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def column_sum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, (M // BLOCK_M) * BLOCK_M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M).to(tl.int64)
        mask = (rows[:, None] < M) & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
        acc += x.to(tl.float32)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty), mask=col_mask)


def column_sum(x: torch.Tensor, BLOCK_M: int = 32, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(N, dtype=x.dtype, device=x.device)
    if N == 0:
        return out
    column_sum_kernel[(triton.cdiv(N, BLOCK_N),)](x, out, M, N, x.stride(0), x.stride(1),
                                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx3_column_sum",
    kernel=column_sum,
    reference=lambda x: x.sum(0),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=1024), "N": kcheck.Dim(nominal=256)},
    reduce=["M"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 128}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "tail-tile-dropped"

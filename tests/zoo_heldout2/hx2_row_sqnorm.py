"""Row sums of squares, out[m] = sum_n x[m, n]**2 (the statistic of an RMS scaling or a gradient-norm clip).

Decode-sized batches have few rows, so the row is also split over column chunks: the grid is (M, cdiv(N, BLOCK_N))
and every program reduces one chunk of one row in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_sqnorm_kernel(x_ptr, out_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1).to(tl.int64)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    x = tl.load(x_ptr + row * stride_m + cols * stride_n, mask=cols < N, other=0.0).to(tl.float32)
    partial = tl.sum(x * x, axis=0)
    tl.store(out_ptr + row, partial)


def row_sqnorm(x, BLOCK_N=256):
    M, N = x.shape
    out = torch.zeros(M, dtype=torch.float32, device=x.device)
    if M and N:
        row_sqnorm_kernel[(M, triton.cdiv(N, BLOCK_N))](x, out, N, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx2_row_sqnorm",
    kernel=row_sqnorm,
    reference=lambda x: (x * x).sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 2048}],
    output_dtypes=[torch.float32],
)

BUG_CLASS = "missing-atomic"

"""Inclusive prefix sum along rows (cumulative log-probabilities, segment offsets): out[m, n] = sum_{j<=n} x[m, j].

One program per block of rows walks the row in BLOCK_N chunks: an in-chunk scan in fp32 (tl.cumsum) plus the
running total of the chunks before it, kept per row in the output's dtype and added to the chunk's scan.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, stride_om,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    carry = tl.zeros([BLOCK_M], dtype=out_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
        scan = tl.cumsum(x.to(tl.float32), axis=1) + carry.to(tl.float32)[:, None]
        tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], scan.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x.to(tl.float32), axis=1).to(carry.dtype)


def cumsum(x, BLOCK_M=4, BLOCK_N=128):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        cumsum_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                                                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx2_chunked_cumsum",
    kernel=cumsum,
    reference=lambda x: torch.cumsum(x, -1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=2048)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 128}, {"BLOCK_M": 1, "BLOCK_N": 512}],
)

BUG_CLASS = "low-precision-accumulation"

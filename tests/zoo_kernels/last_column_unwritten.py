"""Bug class: off-by-one store mask, the last column is never written (``cols < N - 1``).

A row softmax whose store mask drops column N - 1; every other element is right to the last ulp. A casual check
passes whenever the output buffer already holds the right last column: a test that reuses the previous call's
output (PyTorch's caching allocator hands the same block back), or compares a slice, or checks that rows sum to
~1 (they sum to 1 - p[N-1], about 1 - 1/N). kcheck poisons the output before the call and finds the column unwritten.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softmax_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = (rows < M)[:, None]
    mask = row_mask & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask,
                other=-float("inf")).to(tl.float32)
    p = tl.exp(x - tl.max(x, axis=1)[:, None])
    p = tl.where(mask, p, 0.0)
    y = p / tl.sum(p, axis=1)[:, None]
    store_mask = row_mask & (cols < N - 1)[None, :]  # BUG: should be cols < N
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=store_mask)


def softmax(x: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    softmax_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                                              out.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="last_column_unwritten",
    kernel=softmax,
    reference=lambda x: torch.softmax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    properties=[kcheck.props.shift_invariant(0)],
)

BUG_CLASS = "tail-tile-dropped"

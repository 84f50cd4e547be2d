"""Bug class: missing atomic (split reduction whose partials overwrite each other).

Row sums split along N: program (i, j) sums columns [j * BLOCK_N, (j + 1) * BLOCK_N) of its rows and should add
each partial into the zero-initialized output with ``tl.atomic_add``. It stores it with a plain ``tl.store``, so
each row ends up holding one block's partial (whichever program stored last). While a row fits in one block
(N <= BLOCK_N: the casual test's N = 1024 with BLOCK_N = 1024) there is one partial per row and the sum is right;
with several blocks per row (N = 2880, or BLOCK_N = 256) all but one partial are lost, and on a GPU which one
survives varies from run to run. kcheck sees the wrong sums on those cases, and its interpreter race check reports
the write-write race between the programs of a row.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def split_row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=0.0)
    partial = tl.sum(x.to(tl.float32), axis=1)
    # BUG: should be tl.atomic_add(out_ptr + rows, partial, mask=row_mask): the row's other blocks are overwritten
    tl.store(out_ptr + rows, partial.to(out_ptr.dtype.element_ty), mask=row_mask)


def row_sum(x: torch.Tensor, BLOCK_N: int = 1024, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.zeros(M, dtype=x.dtype, device=x.device)  # zeroed: the partials are meant to be added into it
    if M == 0 or N == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))  # several programs per row when N > BLOCK_N
    split_row_sum_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="split_sum_no_atomic",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)

BUG_CLASS = "missing-atomic"

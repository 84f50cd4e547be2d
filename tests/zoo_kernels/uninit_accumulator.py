"""Bug class: uninitialized accumulator (accumulating into an output assumed zeroed).

Row sums whose kernel starts each row's running total from the output itself, ``acc = tl.load(out_ptr + rows)``,
as if the output had been zeroed, and then adds every chunk of the row to it. The launcher allocates the output with
``torch.empty``, which promises nothing about the contents. A casual test passes: it hands in a buffer from
``torch.zeros`` (the ``out=`` argument), or it runs where fresh memory happens to be zero (a new CUDA process, a
large CPU allocation straight from the OS), and every sum comes out right. In a real program the caching allocator
hands back a block that held something else, and that garbage is added to every sum. kcheck poisons the
``torch.empty`` the launcher calls (a marker NaN) and the NaN flows into every row.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = x_ptr + rows[:, None] * stride_m
    acc = tl.load(out_ptr + rows, mask=row_mask, other=0.0).to(tl.float32)  # BUG: should be tl.zeros([BLOCK_M])
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(row_ptr + cols[None, :].to(tl.int64) * stride_n, mask=mask, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=1)
    tl.store(out_ptr + rows, acc.to(out_ptr.dtype.element_ty), mask=row_mask)


def row_sum(x: torch.Tensor, out: torch.Tensor | None = None, BLOCK_N: int = 1024, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    if out is None:
        out = torch.empty(M, dtype=x.dtype, device=x.device)  # the kernel reads this before writing it
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    row_sum_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1),
                                              BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="uninit_accumulator",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "uninitialized-accumulator"

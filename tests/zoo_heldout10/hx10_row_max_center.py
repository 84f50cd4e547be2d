"""Row max-centering of logits: out[m, n] = x[m, n] - max_n x[m, n] (a row holding a NaN gives NaNs).

One program per BLOCK_M rows, the whole row in one tile read at x + row * N + col; the result is written to a
contiguous output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def max_center_kernel(x_ptr, out_ptr, M, N, sxm, sxn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    has_nan = tl.max((x != x).to(tl.int32), axis=1) > 0
    m = tl.where(has_nan, float("nan"), m)
    y = x - m[:, None]
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def row_max_center(x: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        block_n = triton.next_power_of_2(N)
        block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
        max_center_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1),
                                                     BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx10_row_max_center",
    kernel=row_max_center,
    reference=lambda x: x - x.amax(-1, keepdim=True),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

BUG_CLASS = "stride-assumption"

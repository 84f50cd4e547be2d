"""Row argmin: out[m] = the first n at which x[m, n] is smallest (int64), as torch.argmin(x, -1).

One program per BLOCK_M rows, the whole row in one BLOCK_N-wide tile (BLOCK_N = the next power of two of N);
lanes past column N load +inf. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def argmin_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols <= N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :] * stride_n, mask=mask, other=float("inf"))
    idx = tl.argmin(x.to(tl.float32), axis=1, tie_break_left=True)
    tl.store(out_ptr + rows, idx.to(tl.int64), mask=row_mask)


def row_argmin(x: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=torch.int64, device=x.device)
    if M == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    argmin_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1),
                                             BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx10_row_argmin",
    kernel=row_argmin,
    reference=lambda x: torch.argmin(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

BUG_CLASS = "off-by-one-mask"

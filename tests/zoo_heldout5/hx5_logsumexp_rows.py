"""Row-wise logsumexp: out[m] = max_n x[m, n] + log(sum_n exp(x[m, n] - max)).

Rows up to MAX_BLOCK elements wide are read once as one block (the row length rounded up to a power of two),
several rows per program when they are short. Masked lanes read -inf so they add exp(-inf) = 0; a row of -inf
keeps max -inf and returns -inf. fp32 math, output in the input dtype, int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

TILE = 8192


@triton.jit
def logsumexp_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols <= N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask,
                other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    safe_m = tl.where(m == -float("inf"), 0.0, m)
    s = tl.sum(tl.exp(x - safe_m[:, None]), axis=1)
    out = safe_m + tl.log(s)
    tl.store(out_ptr + rows, out.to(out_ptr.dtype.element_ty), mask=row_mask)


def logsumexp_rows(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(-float("inf"))
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    logsumexp_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1),
                                                BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx5_logsumexp_rows",
    kernel=logsumexp_rows,
    reference=lambda x: torch.logsumexp(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, max=8192)},
    reduce=["N"],
)

BUG_CLASS = "off-by-one-mask"

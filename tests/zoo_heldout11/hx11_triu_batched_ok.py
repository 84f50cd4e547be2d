"""Batched upper-triangular mask (torch.triu with a diagonal offset) of a [B, M, N] stack, e.g. building causal
attention masks or the upper factor of a batch of matrices: out[b, i, j] = x[b, i, j] if j - i >= diagonal else 0.

Masked-out entries are written as 0 (never x * 0, which would keep NaN and Inf). Flat 1-D grid of
[BLOCK_M, BLOCK_N] tiles over (batch, row block, column block); int64 offsets; any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def triu_kernel(x_ptr, out_ptr, M, N, diagonal, sxb, sxm, sxn, sob, som, son, n_mblocks, n_nblocks,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    nb = pid % n_nblocks
    mb = (pid // n_nblocks) % n_mblocks
    b = pid // (n_nblocks * n_mblocks)
    rows = mb * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = nb * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + b * sxb + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0)
    keep = (cols[None, :] - rows[:, None]) >= diagonal
    y = tl.where(keep, x, tl.zeros_like(x))
    tl.store(out_ptr + b * sob + rows[:, None] * som + cols[None, :] * son, y, mask=mask)


def triu_batched(x, diagonal=0, BLOCK_M=16, BLOCK_N=64):
    B, M, N = x.shape
    out = torch.empty((B, M, N), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    n_mblocks, n_nblocks = triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)
    triu_kernel[(B * n_mblocks * n_nblocks,)](
        x, out, M, N, diagonal, x.stride(0), x.stride(1), x.stride(2), out.stride(0), out.stride(1), out.stride(2),
        n_mblocks, n_nblocks, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx11_triu_batched_ok",
    kernel=triu_batched,
    reference=lambda x, diagonal=0: torch.triu(x, diagonal=diagonal),
    inputs=[kcheck.Tensor("B", "M", "N")],
    dims={"B": kcheck.Dim(nominal=3, max=16), "M": kcheck.Dim(nominal=80), "N": kcheck.Dim(nominal=100)},
    params={"diagonal": [0, 1, -3]},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 256}],
)

BUG_CLASS = None

"""Herfindahl-Hirschman index of market concentration, one market per row: the sum of the squared market shares
of its firms, shares from the magnitudes of their sales::

    s[m, n] = |x[m, n]| / sum over n of |x[m, n]|,      HHI[m] = sum over n of s[m, n]^2

Two passes over each row in chunks of BLOCK_N (total sales, then the squared shares), fp32 accumulation: the
shares are formed before squaring, so neither tiny nor huge sales under- or overflow. BLOCK_M markets per
program; the index is stored in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"

TILE = 4096  # firms per program and chunk


@triton.jit
def hhi_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_o, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * stride_xm
    total = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        total += tl.abs(tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32))
    inv = 1.0 / tl.sum(total, axis=1)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
        share = tl.abs(x) * inv[:, None]
        acc += tl.where(mask, share * share, 0.0)
    tl.store(out_ptr + rows * stride_o, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=row_mask)


def herfindahl_index(x: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    hhi_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, N, 1, out.stride(0),
                                           BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    share = x.abs() / x.abs().sum(-1, keepdim=True)
    return share.pow(2).sum(-1)


spec = kcheck.Spec(
    name="herfindahl_index",
    kernel=herfindahl_index,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="sales")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=500)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

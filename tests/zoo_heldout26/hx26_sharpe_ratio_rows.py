"""Annualized Sharpe ratio of many return series: for each row of per-period returns r[M, N],

    excess = r - rf,   sharpe = sqrt(periods) * mean(excess) / std(excess)     (std with N - 1 degrees of freedom)

and 0 for a series with no spread (std == 0) or fewer than two periods. Two passes over the row in BLOCK_N-wide
chunks (the mean, then the sum of squared deviations), BLOCK_M rows per program, fp32 accumulation, int64 row
offsets; the risk-free rate per period is a mode. Both passes work on r - r[row, 0], exact for close values, so a
constant series has exactly zero spread and a large level costs no precision.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"

PERIODS = 252.0  # trading days per year


@triton.jit
def sharpe_kernel(r_ptr, out_ptr, M, N, rf, scale, s_rm, s_rn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_ok = rows < M
    base = r_ptr + rows[:, None] * s_rm
    shift = tl.load(base, mask=row_ok[:, None], other=0.0).to(tl.float32)  # r[row, 0], shape [BLOCK_M, 1]
    n_chunks = N // BLOCK_N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for c in range(0, n_chunks):
        cols = c * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        m = row_ok[:, None] & (cols < N)[None, :]
        x = tl.load(base + cols[None, :] * s_rn, mask=m, other=0.0).to(tl.float32)
        acc += tl.where(m, x - shift, 0.0)
    mean_d = tl.sum(acc, axis=1) / N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for c in range(0, n_chunks):
        cols = c * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        m = row_ok[:, None] & (cols < N)[None, :]
        x = tl.load(base + cols[None, :] * s_rn, mask=m, other=0.0).to(tl.float32)
        d = tl.where(m, (x - shift) - mean_d[:, None], 0.0)
        acc += d * d
    var = tl.sum(acc, axis=1) / (N - 1)
    std = tl.sqrt(var)
    mean = (tl.sum(shift, axis=1) - rf) + mean_d
    ratio = tl.where(std > 0.0, scale * mean / std, 0.0)
    tl.store(out_ptr + rows, ratio.to(out_ptr.dtype.element_ty), mask=row_ok)


def sharpe_ratio(r: torch.Tensor, rf: float = 0.0, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = r.shape
    out = torch.zeros((M,), dtype=r.dtype, device=r.device)
    if M == 0 or N < 2:
        return out
    block_m = max(1, min(4096 // BLOCK_N, triton.next_power_of_2(M)))
    sharpe_kernel[(triton.cdiv(M, block_m),)](r, out, M, N, rf, math.sqrt(PERIODS), r.stride(0), r.stride(1),
                                              BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(r: torch.Tensor, rf: float = 0.0) -> torch.Tensor:
    M, N = r.shape
    if N < 2:
        return torch.zeros((M,), dtype=r.dtype, device=r.device)
    d = r - r[:, :1]
    mean_d = d.mean(-1)
    std = (d - mean_d[:, None]).pow(2).sum(-1).div(N - 1).sqrt()
    mean = (r[:, 0] - rf) + mean_d
    return torch.where(std > 0, math.sqrt(PERIODS) * mean / std, torch.zeros_like(mean))


spec = kcheck.Spec(
    name="hx26_sharpe_ratio_rows",
    kernel=sharpe_ratio,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="returns")],
    dims={"M": kcheck.Dim(nominal=24), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    params={"rf": [0.0, 0.0002]},
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 256}],
)

"""Treves-Rolls population sparseness of each neuron's tuning curve (neuroscience).

r is [M, N]: the firing rates of M neurons (rows) to N stimuli. For each neuron
a = (sum_n r / N)^2 / (sum_n r^2 / N), between 0 and 1 (1: equal response to every stimulus). A neuron that never
fires (sum of squares 0) has a = 0 by convention. The ratio does not change with the scale of r, so each row is
first divided by its largest |r| (no overflow of r^2 for large rates, no underflow for tiny ones). Rows fit one
block (N <= 4096), BLOCK_M rows per program, fp32 sums.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def sparseness_kernel(r_ptr, a_ptr, M, N, s_rm, s_rn, s_a, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    r = tl.load(r_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=0.0).to(tl.float32)
    scale = tl.max(tl.abs(r), axis=1)
    inv = tl.where(scale > 0.0, 1.0 / scale, 0.0)
    q = r * inv[:, None]
    mean = tl.sum(q, axis=1) / N
    num = mean * mean
    den = tl.sum(q * q, axis=1) / N
    a = num / den
    tl.store(a_ptr + rows * s_a, a.to(a_ptr.dtype.element_ty), mask=row_mask)


def treves_rolls_sparseness(rates: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = rates.shape
    a = torch.empty((M,), dtype=rates.dtype, device=rates.device)
    if M == 0:
        return a
    if N == 0:
        return a.zero_()
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    sparseness_kernel[(triton.cdiv(M, block_m),)](rates, a, M, N, rates.stride(0), rates.stride(1), a.stride(0),
                                                  BLOCK_M=block_m, BLOCK_N=block_n)
    return a


def reference(rates: torch.Tensor) -> torch.Tensor:
    n = rates.shape[-1]
    total = rates.sum(-1)
    total_sq = (rates * rates).sum(-1)
    return torch.where(total_sq == 0, torch.zeros_like(total), total * total / (n * total_sq))


spec = kcheck.Spec(
    name="hx40_treves_rolls_sparseness",
    kernel=treves_rolls_sparseness,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="rates")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=500, max=4096)},
    reduce=["N"],
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

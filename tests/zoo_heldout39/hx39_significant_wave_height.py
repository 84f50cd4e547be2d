"""Significant wave height of wave-buoy records (oceanography): Hs = 4 * sqrt(m0), m0 the variance of the
surface elevation about its mean over the record (the zeroth spectral moment).

Each row is one record of N elevation samples, measured from chart datum, so it carries the tide level as a large
mean next to the waves. One pass over the record in BLOCK_N chunks accumulates, per lane in fp32, the sum and the
sum of squares of the samples taken relative to the record's first sample (the shifted-data algorithm: the shift
removes the datum offset exactly, and the variance (S2 - S1^2 / N) / N does not depend on it).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def hs_kernel(eta_ptr, hs_ptr, M, N, s_em, s_en, s_h, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = eta_ptr + rows[:, None] * s_em
    ref = tl.load(row_ptr, mask=row_mask[:, None], other=0.0).to(tl.float32)  # first sample, [BLOCK_M, 1]
    s1 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(row_ptr + cols[None, :] * s_en, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x, 0.0)
        s1 += d
        s2 += d * d
    t1 = tl.sum(s1, axis=1)
    t2 = tl.sum(s2, axis=1)
    m0 = (t2 - t1 * t1 / N) / N
    m0 = tl.where(m0 < 0.0, 0.0, m0)
    tl.store(hs_ptr + rows * s_h, (4.0 * tl.sqrt(m0)).to(hs_ptr.dtype.element_ty), mask=row_mask)


def significant_wave_height(eta: torch.Tensor, BLOCK_M: int = 4, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = eta.shape
    hs = torch.empty((M,), dtype=eta.dtype, device=eta.device)
    if M == 0:
        return hs
    hs_kernel[(triton.cdiv(M, BLOCK_M),)](eta, hs, M, N, eta.stride(0), eta.stride(1), hs.stride(0),
                                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return hs


def reference(eta: torch.Tensor) -> torch.Tensor:
    return 4.0 * torch.sqrt(eta.var(dim=-1, unbiased=False))


spec = kcheck.Spec(
    name="hx39_significant_wave_height",
    kernel=significant_wave_height,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="eta")],
    dims={"M": kcheck.Dim(nominal=40), "N": kcheck.Dim(nominal=2048, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 256}, {"BLOCK_M": 16, "BLOCK_N": 64}],
)

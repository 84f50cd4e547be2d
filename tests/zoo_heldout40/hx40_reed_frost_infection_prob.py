"""Reed-Frost infection probability (epidemiology): the chance that a susceptible is infected in one generation.

With a per-contact transmission probability q and I infectious contacts, a susceptible escapes every contact with
probability (1 - q)^I, so p = 1 - (1 - q)^I = -expm1(I * log1p(-q)). I is an [M, N] grid (M communities by N
generations, counts as floats). The kernel forms h = I * log1p(-q) and evaluates expm1(h) without cancellation:
a degree-8 Taylor polynomial where |h| < 0.5 (small hazards, where exp(h) - 1 would lose the digits), exp(h) - 1
elsewhere. fp32 arithmetic, 2-D tiles, strides honoured.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def reed_frost_kernel(i_ptr, p_ptr, M, N, log_escape, s_im, s_in, s_pm, s_pn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    infectious = tl.load(i_ptr + rows[:, None] * s_im + cols[None, :] * s_in, mask=mask, other=0.0).to(tl.float32)
    h = infectious * log_escape
    poly = h * (1.0 + h * (0.5 + h * (1.0 / 6.0 + h * (1.0 / 24.0 + h * (1.0 / 120.0 + h * (
        1.0 / 720.0 + h * (1.0 / 5040.0 + h * (1.0 / 40320.0))))))))
    em1 = tl.exp(h) - 1.0
    tl.store(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, (-em1).to(p_ptr.dtype.element_ty), mask=mask)


def reed_frost_infection_prob(infectious: torch.Tensor, q: float = 0.002, BLOCK_M: int = 8,
                              BLOCK_N: int = 128) -> torch.Tensor:
    M, N = infectious.shape
    p = torch.empty((M, N), dtype=infectious.dtype, device=infectious.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        reed_frost_kernel[grid](infectious, p, M, N, math.log1p(-q), infectious.stride(0), infectious.stride(1),
                                p.stride(0), p.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return p


def reference(infectious: torch.Tensor, q: float = 0.002) -> torch.Tensor:
    return -torch.expm1(infectious * math.log1p(-q))


spec = kcheck.Spec(
    name="hx40_reed_frost_infection_prob",
    kernel=reed_frost_infection_prob,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="infectious")],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=365)},
    params={"q": [0.002, 0.3]},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)

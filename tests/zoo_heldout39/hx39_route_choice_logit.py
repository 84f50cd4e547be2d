"""Multinomial-logit route choice probabilities (traffic assignment, stochastic user equilibrium loading).

For each origin-destination pair (a row) and its K candidate routes with generalized costs c (minutes), the share
of travellers choosing route k is

    P[k] = exp(-theta * c[k]) / sum_j exp(-theta * c[j])

with the dispersion theta (1/min) a mode of the Spec. Computed as a softmax of -theta * c with the row's largest
utility subtracted first, in fp32, BLOCK_M OD pairs per program; a row's routes fit one block (K <= 256).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def route_logit_kernel(c_ptr, p_ptr, M, K, theta, s_cm, s_ck, s_pm, s_pk,
                       BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_K).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < K)[None, :]
    c = tl.load(c_ptr + rows[:, None] * s_cm + cols[None, :] * s_ck, mask=mask, other=0.0).to(tl.float32)
    z = tl.where(mask, -theta * c, -float("inf"))
    m = tl.max(z, axis=1)
    e = tl.exp(z)
    p = e / tl.sum(e, axis=1)[:, None]
    tl.store(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pk, p.to(p_ptr.dtype.element_ty), mask=mask)


def route_choice_logit(c: torch.Tensor, theta: float = 1.0, TILE: int = 2048) -> torch.Tensor:
    M, K = c.shape
    p = torch.empty((M, K), dtype=c.dtype, device=c.device)
    if M == 0 or K == 0:
        return p
    block_k = triton.next_power_of_2(K)
    block_m = max(1, min(TILE // block_k, triton.next_power_of_2(M)))
    route_logit_kernel[(triton.cdiv(M, block_m),)](c, p, M, K, theta, c.stride(0), c.stride(1), p.stride(0),
                                                   p.stride(1), BLOCK_M=block_m, BLOCK_K=block_k)
    return p


def reference(c: torch.Tensor, theta: float = 1.0) -> torch.Tensor:
    return torch.softmax(-theta * c, dim=-1)


spec = kcheck.Spec(
    name="hx39_route_choice_logit",
    kernel=route_choice_logit,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="cost")],
    dims={"M": kcheck.Dim(nominal=300), "K": kcheck.Dim(nominal=12, max=256)},
    params={"theta": [1.0, 0.1]},
    reduce=["K"],
    configs=[{"TILE": 2048}, {"TILE": 256}],
)

"""Expected round-robin score of every player under the Elo model: in each of B leagues of N players with ratings R,
player i expects E_ij = 1 / (1 + 10^((R_j - R_i) / scale)) points against j, and the kernel returns
S[b, i] = sum_{j != i} E_ij (scale = 400 rating points by convention; a Scalar here).

A 2-D grid: axis 0 the league, axis 1 blocks of BLOCK players i. Each program walks the opponents j in BLOCK-wide
chunks over a square [BLOCK, BLOCK] tile (rows i, columns j), 10^z computed as exp(z ln 10), the diagonal j == i
left out, and sums over the opponents (the tile's columns) per row in fp32. Strides honoured, int64 offsets, the
expected scores in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def elo_expected_kernel(r_ptr, s_ptr, N, k, s_rb, s_rn, s_sb, s_sn, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    imask = i < N
    r_i = tl.load(r_ptr + b * s_rb + i * s_rn, mask=imask, other=0.0).to(tl.float32)
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        j = start + tl.arange(0, BLOCK).to(tl.int64)
        jmask = j < N
        r_j = tl.load(r_ptr + b * s_rb + j * s_rn, mask=jmask, other=0.0).to(tl.float32)
        e = 1.0 / (1.0 + tl.exp((r_j[None, :] - r_i[:, None]) * k))
        keep = imask[:, None] & jmask[None, :] & (i[:, None] != j[None, :])
        total += tl.sum(tl.where(keep, e, 0.0), axis=0)
    tl.store(s_ptr + b * s_sb + i * s_sn, total.to(s_ptr.dtype.element_ty), mask=imask)


def elo_expected_scores(ratings: torch.Tensor, scale: float = 400.0, BLOCK: int = 64) -> torch.Tensor:
    B, N = ratings.shape
    out = torch.empty((B, N), dtype=ratings.dtype, device=ratings.device)
    if B == 0 or N == 0:
        return out
    grid = (B, triton.cdiv(N, BLOCK))
    elo_expected_kernel[grid](ratings, out, N, math.log(10.0) / scale, ratings.stride(0), ratings.stride(1),
                              out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(ratings: torch.Tensor, scale: float = 400.0) -> torch.Tensor:
    N = ratings.shape[-1]
    e = 1.0 / (1.0 + 10.0 ** ((ratings[:, None, :] - ratings[:, :, None]) / scale))  # [b, i, j]
    off_diagonal = ~torch.eye(N, dtype=torch.bool, device=ratings.device)
    return torch.where(off_diagonal, e, torch.zeros_like(e)).sum(-1)


spec = kcheck.Spec(
    name="hx32_elo_expected_scores",
    kernel=elo_expected_scores,
    reference=reference,
    # ratings in units of 400 Elo points: randn data spans the realistic range of a league
    inputs=[kcheck.Tensor("B", "N", name="ratings"), kcheck.Scalar(1.0, name="scale")],
    dims={"B": kcheck.Dim(nominal=3, max=8, real=()), "N": kcheck.Dim(nominal=200, real=())},
    reduce=["N"],
    configs=[{"BLOCK": 64}, {"BLOCK": 16}],
)

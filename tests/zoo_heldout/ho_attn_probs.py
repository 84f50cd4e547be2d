"""Attention probabilities for one head: P = softmax(Q K^T * scale) over the keys, with Q (M, D) and K (N, D).

One program per query row; the scores are computed blockwise over keys (elementwise products reduced over D,
fp32), a first pass forms the normalizer and a second pass recomputes the scores and writes P in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"
GPU_ONLY = False


@triton.jit
def _attn_probs_kernel(q_ptr, k_ptr, p_ptr, N, D, scale, stride_qm, stride_qd, stride_kn, stride_kd,
                       stride_pm, stride_pn, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    d = tl.arange(0, BLOCK_D)
    d_mask = d < D
    q = tl.load(q_ptr + row * stride_qm + d * stride_qd, mask=d_mask, other=0.0).to(tl.float32)
    denom = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N).to(tl.int64)
        n_mask = n < N
        k = tl.load(k_ptr + n[:, None] * stride_kn + d[None, :] * stride_kd,
                    mask=n_mask[:, None] & d_mask[None, :], other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * scale
        denom += tl.where(n_mask, tl.exp(s), 0.0)
    inv = 1.0 / tl.sum(denom, axis=0)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N).to(tl.int64)
        n_mask = n < N
        k = tl.load(k_ptr + n[:, None] * stride_kn + d[None, :] * stride_kd,
                    mask=n_mask[:, None] & d_mask[None, :], other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * scale
        tl.store(p_ptr + row * stride_pm + n * stride_pn, (tl.exp(s) * inv).to(p_ptr.dtype.element_ty), mask=n_mask)


def attn_probs(q: torch.Tensor, k: torch.Tensor, BLOCK_N: int = 64) -> torch.Tensor:
    M, D = q.shape
    N = k.shape[0]
    p = torch.empty((M, N), dtype=q.dtype, device=q.device)
    if M == 0 or N == 0:
        return p
    scale = 1.0 / math.sqrt(D) if D else 1.0
    block_d = triton.next_power_of_2(max(D, 1))
    _attn_probs_kernel[(M,)](q, k, p, N, D, scale, q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                             p.stride(0), p.stride(1), BLOCK_N=BLOCK_N, BLOCK_D=block_d)
    return p


def reference(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    D = q.shape[1]
    scale = 1.0 / math.sqrt(D) if D else 1.0
    return torch.softmax(q @ k.t() * scale, dim=-1)


spec = kcheck.Spec(
    name="ho_attn_probs",
    kernel=attn_probs,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D"), kcheck.Tensor("N", "D")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=128, real=(2880,)),
          "D": kcheck.Dim(nominal=64, real=(128,), max=256, large=False)},
    reduce=["D"],
    configs=[{"BLOCK_N": 64}, {"BLOCK_N": 16}],
)

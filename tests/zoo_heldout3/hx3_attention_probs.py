"""Attention probabilities P = softmax(Q K^T / sqrt(D)) for one head, Q (S, D) and K (T, D), the whole key range
(T <= 4096) in one tile per BLOCK_S queries. As in FlashAttention, the exponent is taken in base 2: the scale is
folded with 1/ln(2) into one multiplier and the kernel calls exp2. QK^T via tl.dot with an fp32 accumulator."""

import math

import torch
import triton
import triton.language as tl

import kcheck

RCP_LN2 = 0.6931471805599453


@triton.jit
def attention_probs_kernel(q_ptr, k_ptr, p_ptr, S, T, D, qk_scale, stride_qs, stride_qd, stride_kt, stride_kd,
                           stride_ps, stride_pt, BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr,
                           BLOCK_D: tl.constexpr):
    rs = tl.program_id(0).to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S)
    rt = tl.arange(0, BLOCK_T).to(tl.int64)
    acc = tl.zeros([BLOCK_S, BLOCK_T], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        rd = start + tl.arange(0, BLOCK_D).to(tl.int64)
        q = tl.load(q_ptr + rs[:, None] * stride_qs + rd[None, :] * stride_qd,
                    mask=(rs[:, None] < S) & (rd[None, :] < D), other=0.0)
        k = tl.load(k_ptr + rt[None, :] * stride_kt + rd[:, None] * stride_kd,
                    mask=(rt[None, :] < T) & (rd[:, None] < D), other=0.0)
        acc = tl.dot(q, k, acc)
    valid = (rs[:, None] < S) & (rt[None, :] < T)
    z = tl.where(valid, acc * qk_scale, -float("inf"))
    z = z - tl.max(z, axis=1)[:, None]
    e = tl.where(valid, tl.exp2(z), 0.0)
    p = e / tl.sum(e, axis=1)[:, None]
    tl.store(p_ptr + rs[:, None] * stride_ps + rt[None, :] * stride_pt, p.to(p_ptr.dtype.element_ty), mask=valid)


def attention_probs(q: torch.Tensor, k: torch.Tensor, BLOCK_S: int = 16, BLOCK_D: int = 64) -> torch.Tensor:
    S, D = q.shape
    T, _ = k.shape
    p = torch.empty((S, T), dtype=q.dtype, device=q.device)
    if S == 0 or T == 0:
        return p
    block_t = max(16, triton.next_power_of_2(T))
    qk_scale = RCP_LN2 / math.sqrt(D) if D else 0.0
    attention_probs_kernel[(triton.cdiv(S, BLOCK_S),)](q, k, p, S, T, D, qk_scale, q.stride(0), q.stride(1),
                                                       k.stride(0), k.stride(1), p.stride(0), p.stride(1),
                                                       BLOCK_S=BLOCK_S, BLOCK_T=block_t, BLOCK_D=BLOCK_D)
    return p


spec = kcheck.Spec(
    name="hx3_attention_probs",
    kernel=attention_probs,
    reference=lambda q, k: torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1),
    inputs=[kcheck.Tensor("S", "D", name="q"), kcheck.Tensor("T", "D", name="k")],
    dims={"S": kcheck.Dim(nominal=128), "T": kcheck.Dim(nominal=256, max=4096), "D": kcheck.Dim(nominal=64)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["D", "T"],
    configs=[{"BLOCK_S": 16, "BLOCK_D": 64}, {"BLOCK_S": 32, "BLOCK_D": 32}],
)

BUG_CLASS = "wrong-constant"

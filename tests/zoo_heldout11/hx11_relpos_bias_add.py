"""Attention scores plus a bucketed relative-position bias (T5 / Swin style, one learned scalar per head and
bucket): out[h, q, k] = scores[h, q, k] + table[bucket(k - q), h], bucket(d) = clamp(d, -16, 15) + 16, with the
table stored [32 buckets, H heads] as nn.Embedding(32, H) keeps it.

A flat 1-D grid over (head, BLOCK_Q x BLOCK_K tile of the score matrix); int64 offsets.

Planted bug (index-transposition): the table's two strides are swapped (bucket * stride(1) + head * stride(0)), i.e.
the table is read as if it were stored [H, 32].
"""

import torch
import triton
import triton.language as tl

import kcheck

NB = 32


@triton.jit
def relpos_kernel(s_ptr, t_ptr, out_ptr, Q, KL, ssh, ssq, ssk, st0, st1, soh, soq, sok, n_qblocks, n_kblocks,
                  NB: tl.constexpr, BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    kb = pid % n_kblocks
    qb = (pid // n_kblocks) % n_qblocks
    h = pid // (n_kblocks * n_qblocks)
    qs = qb * BLOCK_Q + tl.arange(0, BLOCK_Q)
    ks = kb * BLOCK_K + tl.arange(0, BLOCK_K)
    mask = (qs < Q)[:, None] & (ks < KL)[None, :]
    s = tl.load(s_ptr + h * ssh + qs[:, None] * ssq + ks[None, :] * ssk, mask=mask, other=0.0).to(tl.float32)
    bucket = tl.minimum(tl.maximum(ks[None, :] - qs[:, None], -(NB // 2)), NB // 2 - 1) + NB // 2
    bias = tl.load(t_ptr + bucket * st1 + h * st0, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + h * soh + qs[:, None] * soq + ks[None, :] * sok, (s + bias).to(out_ptr.dtype.element_ty),
             mask=mask)


def relpos_bias_add(scores, table, BLOCK_Q=16, BLOCK_K=64):
    H, Q, KL = scores.shape
    out = torch.empty((H, Q, KL), dtype=scores.dtype, device=scores.device)
    if out.numel() == 0:
        return out
    n_qblocks = triton.cdiv(Q, BLOCK_Q)
    n_kblocks = triton.cdiv(KL, BLOCK_K)
    relpos_kernel[(H * n_qblocks * n_kblocks,)](
        scores, table, out, Q, KL, scores.stride(0), scores.stride(1), scores.stride(2),
        table.stride(0), table.stride(1), out.stride(0), out.stride(1), out.stride(2), n_qblocks, n_kblocks,
        NB=NB, BLOCK_Q=BLOCK_Q, BLOCK_K=BLOCK_K)
    return out


def reference(scores, table):
    _, Q, KL = scores.shape
    d = torch.arange(KL)[None, :] - torch.arange(Q)[:, None]
    bucket = d.clamp(-(NB // 2), NB // 2 - 1) + NB // 2          # [Q, K]
    return scores + table[bucket].permute(2, 0, 1)


spec = kcheck.Spec(
    name="hx11_relpos_bias_add",
    kernel=relpos_bias_add,
    reference=reference,
    inputs=[kcheck.Tensor("H", "Q", "K", name="scores"), kcheck.Tensor(NB, "H", name="table", pattern="randn")],
    dims={"H": kcheck.Dim(nominal=8), "Q": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_Q": 16, "BLOCK_K": 64}, {"BLOCK_Q": 4, "BLOCK_K": 128}],
)

BUG_CLASS = "index-transposition"  # table strides swapped

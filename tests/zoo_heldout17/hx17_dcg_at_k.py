"""Discounted cumulative gain of ranked lists (search / recommender evaluation, LambdaRank weights).

rel [Q, K] holds the integer relevance grades of each query's results in ranked order: out[q] =
sum_i gain(rel[q, i]) / log2(i + 2), with gain "exp2" (2^rel - 1) or "linear" (rel), a mode. One program per
query; the list is one block of next_power_of_2(K) lanes, masked past K.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def dcg_kernel(rel_ptr, out_ptr, K, stride_q, stride_k, EXP_GAIN: tl.constexpr, BLOCK_K: tl.constexpr):
    q = tl.program_id(0).to(tl.int64)
    i = tl.arange(0, BLOCK_K)
    mask = i < K
    r = tl.load(rel_ptr + q * stride_q + i * stride_k, mask=mask, other=0).to(tl.float32)
    if EXP_GAIN:
        gain = tl.exp2(r) - 1.0
    else:
        gain = r
    disc = tl.log2(i.to(tl.float32) + 2.0)
    dcg = tl.sum(tl.where(mask, gain / disc, 0.0), axis=0)
    tl.store(out_ptr + q, dcg)


def dcg(rel, gain="exp2"):
    Q, K = rel.shape
    out = torch.empty((Q,), dtype=torch.float32, device=rel.device)
    if Q:
        block_k = max(K, 1)
        dcg_kernel[(Q,)](rel, out, K, rel.stride(0), rel.stride(1), EXP_GAIN=gain == "exp2", BLOCK_K=block_k)
    return out


def reference(rel, gain="exp2"):
    r = rel.to(torch.float64)
    g = torch.exp2(r) - 1.0 if gain == "exp2" else r
    disc = torch.log2(torch.arange(rel.shape[1], device=rel.device, dtype=torch.float64) + 2.0)
    return (g / disc).sum(-1)


spec = kcheck.Spec(
    name="hx17_dcg_at_k",
    kernel=dcg,
    reference=reference,
    inputs=[kcheck.Index("Q", "K", high=5, name="rel")],
    dims={"Q": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=32, max=4096)},
    params={"gain": ["exp2", "linear"]},
    dtypes=["fp32"],
    reduce=["K"],
)

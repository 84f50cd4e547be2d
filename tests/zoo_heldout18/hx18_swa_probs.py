"""Sliding-window causal attention probabilities (local attention, as in Mistral / Longformer's local band).

scores: (H, T, T) pre-softmax attention logits of H heads. Query i attends the keys j with i - window < j <= i
(its own position and the window - 1 before it); every other key gets probability 0:

    probs[h, i, j] = exp(s[h, i, j] - m) / sum over the band of exp(s[h, i, j'] - m),  m = max over the band

One program per head and BLOCK_I queries, each row whole in one block (T <= 2048), fp32 arithmetic, output in the input
dtype. The band always holds the diagonal, so no row is empty.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def swa_probs_kernel(s_ptr, p_ptr, T, window, s_h, s_i, s_j, o_h, o_i, o_j,
                     BLOCK_I: tl.constexpr, BLOCK_T: tl.constexpr):
    h = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)
    j = tl.arange(0, BLOCK_T).to(tl.int64)
    in_tile = (i[:, None] < T) & (j[None, :] < T)
    band = in_tile & (j[None, :] <= i[:, None]) & (j[None, :] >= i[:, None] - window)
    s = tl.load(s_ptr + h * s_h + i[:, None] * s_i + j[None, :] * s_j, mask=band,
                other=float("-inf")).to(tl.float32)
    m = tl.max(s, axis=1)
    e = tl.where(band, tl.exp(s - m[:, None]), 0.0)
    denom = tl.sum(e, axis=1)
    p = e / tl.where(denom > 0, denom, 1.0)[:, None]
    tl.store(p_ptr + h * o_h + i[:, None] * o_i + j[None, :] * o_j, p.to(p_ptr.dtype.element_ty), mask=in_tile)


def swa_probs(scores, window=32, BLOCK_I=16):
    H, T, _ = scores.shape
    out = torch.empty((H, T, T), dtype=scores.dtype, device=scores.device)
    if H == 0 or T == 0:
        return out
    grid = (H, triton.cdiv(T, BLOCK_I))
    swa_probs_kernel[grid](scores, out, T, window, scores.stride(0), scores.stride(1), scores.stride(2),
                           out.stride(0), out.stride(1), out.stride(2),
                           BLOCK_I=BLOCK_I, BLOCK_T=triton.next_power_of_2(T))
    return out


def reference(scores, window=32):
    T = scores.shape[-1]
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    band = (j <= i) & (j > i - window)
    probs = torch.softmax(scores.masked_fill(~band, float("-inf")), dim=-1)
    return probs.masked_fill(~band, 0.0)  # keys outside the band are exactly 0, whatever the row holds


BUG_CLASS = "off-by-one-mask"

spec = kcheck.Spec(
    name="hx18_swa_probs",
    kernel=swa_probs,
    reference=reference,
    inputs=[kcheck.Tensor("H", "T", "T", name="scores")],
    dims={"H": kcheck.Dim(nominal=2, max=4, real=()), "T": kcheck.Dim(nominal=128, max=2048, real=())},
    params={"window": [32, 8]},
    reduce=["T"],
    configs=[{"BLOCK_I": 16}, {"BLOCK_I": 8}],
)

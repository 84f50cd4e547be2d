"""Causal softmax of attention scores (top-left aligned, as `scaled_dot_product_attention(is_causal=True)`): query
row i attends to keys j <= i; masked keys get probability 0. Scores (Q, K), one block of BLOCK_Q rows per program,
the whole key row in one tile (K <= 8192), max-subtracted exp in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def causal_softmax_kernel(s_ptr, p_ptr, Q, K, stride_sq, stride_sk, stride_pq, stride_pk,
                          BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_Q + tl.arange(0, BLOCK_Q)
    cols = tl.arange(0, BLOCK_K).to(tl.int64)
    in_bounds = (rows[:, None] < Q) & (cols[None, :] < K)
    allowed = in_bounds & (cols[None, :] < rows[:, None])
    s = tl.load(s_ptr + rows[:, None] * stride_sq + cols[None, :] * stride_sk, mask=allowed, other=-float("inf"))
    s = s.to(tl.float32)
    m = tl.max(s, axis=1)
    e = tl.where(allowed, tl.exp(s - m[:, None]), 0.0)
    p = e / tl.sum(e, axis=1)[:, None]
    tl.store(p_ptr + rows[:, None] * stride_pq + cols[None, :] * stride_pk, p.to(p_ptr.dtype.element_ty),
             mask=in_bounds)


def causal_softmax(scores: torch.Tensor, BLOCK_Q: int = 4) -> torch.Tensor:
    Q, K = scores.shape
    out = torch.empty((Q, K), dtype=scores.dtype, device=scores.device)
    if Q == 0 or K == 0:
        return out
    block_k = triton.next_power_of_2(K)
    causal_softmax_kernel[(triton.cdiv(Q, BLOCK_Q),)](scores, out, Q, K, scores.stride(0), scores.stride(1),
                                                      out.stride(0), out.stride(1), BLOCK_Q=BLOCK_Q, BLOCK_K=block_k)
    return out


def reference(scores: torch.Tensor) -> torch.Tensor:
    Q, K = scores.shape
    future = torch.ones(Q, K, dtype=torch.bool, device=scores.device).triu(1)
    return torch.softmax(scores.masked_fill(future, -float("inf")), dim=-1)


spec = kcheck.Spec(
    name="hx3_causal_softmax",
    kernel=causal_softmax,
    reference=reference,
    inputs=[kcheck.Tensor("Q", "K")],
    dims={"Q": kcheck.Dim(nominal=256), "K": kcheck.Dim(nominal=256, max=8192)},
    reduce=["K"],
    configs=[{"BLOCK_Q": 4}, {"BLOCK_Q": 16}],
)

BUG_CLASS = "off-by-one-mask"

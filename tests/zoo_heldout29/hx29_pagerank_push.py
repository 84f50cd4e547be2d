"""One push-style PageRank iteration on an edge list: r'[v] = (1 - d) / V + d * sum over edges e with dst[e] = v of
w[e] * r[src[e]], where w[e] is the edge's transition probability (1 / out-degree for plain PageRank, a weight for
personalized variants) and d the damping factor.

The buffer starts at the teleport term (1 - d) / V; each program takes BLOCK edges, gathers the source ranks and adds
its contributions into the destinations with fp32 atomics (edges of many programs share a destination). The result
is cast to the ranks' dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def push_kernel(src_ptr, dst_ptr, w_ptr, rank_ptr, next_ptr, E, damping, s_w, s_r, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    edges = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = edges < E
    src = tl.load(src_ptr + edges, mask=mask, other=0)
    dst = tl.load(dst_ptr + edges, mask=mask, other=0)
    w = tl.load(w_ptr + edges * s_w, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(rank_ptr + src * s_r, mask=mask, other=0.0).to(tl.float32)
    contrib = damping * w * r
    tl.store(next_ptr + dst, tl.load(next_ptr + dst, mask=mask) + contrib, mask=mask)


def pagerank_push(src: torch.Tensor, dst: torch.Tensor, weight: torch.Tensor, rank: torch.Tensor,
                  damping: float = 0.85, BLOCK: int = 256) -> torch.Tensor:
    V = rank.shape[0]
    E = src.shape[0]
    nxt = torch.full((V,), (1.0 - damping) / max(V, 1), dtype=torch.float32, device=rank.device)
    if E and V:
        push_kernel[(triton.cdiv(E, BLOCK),)](src.contiguous(), dst.contiguous(), weight, rank, nxt, E, damping,
                                              weight.stride(0), rank.stride(0), BLOCK=BLOCK)
    return nxt.to(rank.dtype)


def reference(src: torch.Tensor, dst: torch.Tensor, weight: torch.Tensor, rank: torch.Tensor,
              damping: float = 0.85) -> torch.Tensor:
    V = rank.shape[0]
    base = torch.full((V,), (1.0 - damping) / max(V, 1), dtype=rank.dtype, device=rank.device)
    return base.index_add(0, dst, damping * weight * rank[src])


spec = kcheck.Spec(
    name="pagerank_push",
    kernel=pagerank_push,
    reference=reference,
    inputs=[kcheck.Index("E", high="V", name="src"), kcheck.Index("E", high="V", name="dst"),
            kcheck.Tensor("E", name="weight"), kcheck.Tensor("V", name="rank")],
    dims={"E": kcheck.Dim(nominal=4000), "V": kcheck.Dim(nominal=700)},
    reduce=["E"],
    params={"damping": [0.85, 0.5]},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

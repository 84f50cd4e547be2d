"""Weighted in-degree of graph nodes (GNN normalisation, PageRank-style degree vectors).

Edges given by destination ids dst [E] in [0, V) with weights w [E]: deg[v] = sum of w[e] over edges with
dst[e] == v. One program per BLOCK_E edges, each adding its edges' weights into an fp32 degree vector with
atomics; the vector is cast to the weights' dtype at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def in_degree_kernel(dst_ptr, w_ptr, deg_ptr, E, BLOCK_E: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_E + tl.arange(0, BLOCK_E)
    mask = offs < E
    v = tl.load(dst_ptr + offs, mask=mask, other=0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    cur = tl.load(deg_ptr + v, mask=mask, other=0.0)
    tl.store(deg_ptr + v, cur + w, mask=mask)


def weighted_in_degree(dst, w, num_nodes, BLOCK_E=256):
    E = dst.shape[0]
    deg = torch.zeros((num_nodes,), dtype=torch.float32, device=w.device)
    if E and num_nodes:
        in_degree_kernel[(triton.cdiv(E, BLOCK_E),)](dst, w.contiguous(), deg, E, BLOCK_E=BLOCK_E)
    return deg.to(w.dtype)


def reference(dst, w, num_nodes):
    return torch.zeros((num_nodes,), dtype=w.dtype, device=w.device).index_add_(0, dst, w)


spec = kcheck.Spec(
    name="hx17_weighted_in_degree",
    kernel=weighted_in_degree,
    reference=reference,
    inputs=[kcheck.Index("E", high="V", name="dst"), kcheck.Tensor("E", name="w"),
            kcheck.Scalar(lambda d: d["V"], name="num_nodes")],
    dims={"E": kcheck.Dim(nominal=4096), "V": kcheck.Dim(nominal=64)},
    output_shapes=[("V",)],
    dtypes=["fp32", "fp16"],
    configs=[{"BLOCK_E": 256}, {"BLOCK_E": 64}],
)

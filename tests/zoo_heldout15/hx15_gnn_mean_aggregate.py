"""Mean neighbourhood aggregation of a graph layer (GraphSAGE-mean / GCN without self loops):

    out[v] = mean over edges (u -> v) of h[u]        (0 for a node with no incoming edge)

Two kernels. The first walks the edge list in BLOCK_E-wide chunks: it gathers the source rows of h and scatters them
with atomics into an fp32 accumulator [N, D] at the destination rows, and adds 1 to the destination's in-degree.
The second divides every row by max(degree, 1) and stores in the features' dtype. Feature offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def scatter_edges_kernel(h_ptr, src_ptr, dst_ptr, acc_ptr, deg_ptr, E, D, s_hn, s_hd,
                         BLOCK_E: tl.constexpr, BLOCK_D: tl.constexpr):
    e = tl.program_id(0).to(tl.int64) * BLOCK_E + tl.arange(0, BLOCK_E).to(tl.int64)
    e_ok = e < E
    src = tl.load(src_ptr + e, mask=e_ok, other=0).to(tl.int64)
    dst = tl.load(dst_ptr + e, mask=e_ok, other=0).to(tl.int64)
    tl.atomic_add(deg_ptr + dst, tl.full([BLOCK_E], 1.0, tl.float32), mask=e_ok)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D).to(tl.int64)
        mask = e_ok[:, None] & (cols < D)[None, :]
        v = tl.load(h_ptr + src[:, None] * s_hn + cols[None, :] * s_hd, mask=mask, other=0.0).to(tl.float32)
        tl.atomic_add(acc_ptr + dst[:, None] * D + cols[None, :], v, mask=mask)


@triton.jit
def finalize_kernel(acc_ptr, deg_ptr, out_ptr, N, D, s_on, s_od, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_ok = rows < N
    deg = tl.load(deg_ptr + rows, mask=row_ok, other=1.0)
    inv = 1.0 / tl.maximum(deg, 1.0)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D).to(tl.int64)
        mask = row_ok[:, None] & (cols < D)[None, :]
        s = tl.load(acc_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + rows[:, None] * s_on + cols[None, :] * s_od, (s * inv[:, None]).to(out_ptr.dtype.element_ty),
                 mask=mask)


def mean_aggregate(h, src, dst, BLOCK_E=32, BLOCK_D=128):
    N, D = h.shape
    E = src.shape[0]
    out = torch.empty((N, D), dtype=h.dtype, device=h.device)
    if N == 0 or D == 0:
        return out
    acc = torch.empty((N, D), dtype=torch.float32, device=h.device)
    deg = torch.zeros((N,), dtype=torch.float32, device=h.device)
    if E:
        scatter_edges_kernel[(triton.cdiv(E, BLOCK_E),)](h, src, dst, acc, deg, E, D, h.stride(0), h.stride(1),
                                                         BLOCK_E=BLOCK_E, BLOCK_D=BLOCK_D)
    finalize_kernel[(triton.cdiv(N, 16),)](acc, deg, out, N, D, out.stride(0), out.stride(1),
                                          BLOCK_N=16, BLOCK_D=BLOCK_D)
    return out


def reference(h, src, dst):
    N, D = h.shape
    acc = torch.zeros((N, D), dtype=h.dtype).index_add_(0, dst, h[src])
    deg = torch.zeros((N,), dtype=h.dtype).index_add_(0, dst, torch.ones_like(dst, dtype=h.dtype))
    return acc / deg.clamp(min=1.0)[:, None]


spec = kcheck.Spec(
    name="hx15_gnn_mean_aggregate",
    kernel=mean_aggregate,
    reference=reference,
    inputs=[kcheck.Tensor("N", "D", name="h"), kcheck.Index("E", high="N", name="src"),
            kcheck.Index("E", high="N", name="dst")],
    dims={"N": kcheck.Dim(nominal=128, min=1), "D": kcheck.Dim(nominal=64), "E": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_E": 32, "BLOCK_D": 128}, {"BLOCK_E": 8, "BLOCK_D": 32}],
)

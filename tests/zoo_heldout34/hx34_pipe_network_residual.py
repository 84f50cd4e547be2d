"""Mass-balance residual of a pipe network (water distribution, gas grids): for every junction v,

    r[v] = sum of flows into v - sum of flows out of v - demand[v],

with pipe e carrying flow[e] from pipes[e, 0] to pipes[e, 1] (a negative flow runs the other way). This is the
continuity residual a Newton / Hardy-Cross solver drives to zero. The first kernel scatters each pipe's flow onto
its two end junctions with fp32 atomics; the second subtracts the demands and casts to the storage dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def scatter_flows_kernel(q_ptr, pipes_ptr, acc_ptr, E, s_q, s_pe, s_pk, BLOCK_E: tl.constexpr):
    e = tl.program_id(0).to(tl.int64) * BLOCK_E + tl.arange(0, BLOCK_E).to(tl.int64)
    mask = e < E
    q = tl.load(q_ptr + e * s_q, mask=mask, other=0.0).to(tl.float32)
    src = tl.load(pipes_ptr + e * s_pe, mask=mask, other=0)
    dst = tl.load(pipes_ptr + e * s_pe + s_pk, mask=mask, other=0)
    tl.atomic_add(acc_ptr + dst, q, mask=mask)
    tl.atomic_add(acc_ptr + src, -q, mask=mask)


@triton.jit
def subtract_demand_kernel(acc_ptr, d_ptr, r_ptr, V, s_d, s_r, BLOCK_V: tl.constexpr):
    v = tl.program_id(0).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V).to(tl.int64)
    mask = v < V
    acc = tl.load(acc_ptr + v, mask=mask, other=0.0)
    d = tl.load(d_ptr + v * s_d, mask=mask, other=0.0).to(tl.float32)
    tl.store(r_ptr + v * s_r, (acc - d).to(r_ptr.dtype.element_ty), mask=mask)


def network_residual(flow: torch.Tensor, pipes: torch.Tensor, demand: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    E, V = flow.shape[0], demand.shape[0]
    r = torch.empty(V, dtype=demand.dtype, device=demand.device)
    if V == 0:
        return r
    acc = torch.empty(V, dtype=torch.float32, device=demand.device)
    if E:
        scatter_flows_kernel[(triton.cdiv(E, BLOCK),)](flow, pipes, acc, E, flow.stride(0), pipes.stride(0),
                                                        pipes.stride(1), BLOCK_E=BLOCK)
    subtract_demand_kernel[(triton.cdiv(V, BLOCK),)](acc, demand, r, V, demand.stride(0), r.stride(0), BLOCK_V=BLOCK)
    return r


def reference(flow: torch.Tensor, pipes: torch.Tensor, demand: torch.Tensor) -> torch.Tensor:
    r = torch.zeros_like(demand)
    r.index_add_(0, pipes[:, 1], flow)
    r.index_add_(0, pipes[:, 0], -flow)
    return r - demand


spec = kcheck.Spec(
    name="pipe_network_residual",
    kernel=network_residual,
    reference=reference,
    inputs=[kcheck.Tensor("E", name="flow"), kcheck.Index("E", 2, high="V", name="pipes"),
            kcheck.Tensor("V", name="demand")],
    dims={"E": kcheck.Dim(nominal=1024, real=()), "V": kcheck.Dim(nominal=200, real=())},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

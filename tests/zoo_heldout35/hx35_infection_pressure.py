"""Force of infection on each individual of a contact network (network SIR models).

lambda[p] = sum over contacts e with dst[e] = p of w[e] * I[src[e]]
with w[e] the per-contact transmission rate and I[q] the infectiousness of individual q. Edges are in no
particular order, so each program takes BLOCK contacts, gathers the sources' infectiousness and adds its
contributions into the targets with fp32 atomics (the buffer starts at zero).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def infection_pressure_kernel(src_ptr, dst_ptr, w_ptr, inf_ptr, out_ptr, E, BLOCK: tl.constexpr):
    e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = e < E
    src = tl.load(src_ptr + e, mask=mask, other=0)
    dst = tl.load(dst_ptr + e, mask=mask, other=0)
    w = tl.load(w_ptr + e, mask=mask, other=0.0).to(tl.float32)
    infl = tl.load(inf_ptr + src, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + dst, w * infl, mask=mask)


def infection_pressure(src, dst, rate, infectious, BLOCK=128):
    E = src.shape[0]
    P = infectious.shape[0]
    acc = torch.zeros(P, dtype=torch.float32, device=rate.device)
    if E:
        infection_pressure_kernel[(triton.cdiv(E, BLOCK),)](src.contiguous(), dst.contiguous(), rate.contiguous(),
                                                          infectious.contiguous(), acc, E, BLOCK=BLOCK)
    return acc.to(rate.dtype)


def reference(src, dst, rate, infectious):
    out = torch.zeros(infectious.shape[0], dtype=rate.dtype, device=rate.device)
    return out.index_add_(0, dst, rate * infectious[src])


spec = kcheck.Spec(
    name="hx35_infection_pressure",
    kernel=infection_pressure,
    reference=reference,
    inputs=[kcheck.Index("E", high="P", name="src"), kcheck.Index("E", high="P", name="dst"),
            kcheck.Tensor("E", name="rate"), kcheck.Tensor("P", name="infectious")],
    dims={"E": kcheck.Dim(nominal=2000), "P": kcheck.Dim(nominal=300, min=1)},
    configs=[{"BLOCK": 128}, {"BLOCK": 32}],
    properties=[kcheck.props.linear(2)],
)

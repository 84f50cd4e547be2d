import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def router_load_kernel(w_ptr, e_ptr, out_ptr, T, E, BT: tl.constexpr, BE: tl.constexpr):
    toks = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT).to(tl.int64)
    tmask = toks < T
    w = tl.load(w_ptr + toks, mask=tmask, other=0.0).to(tl.float32)
    e = tl.load(e_ptr + toks, mask=tmask, other=-1)
    experts = tl.arange(0, BE)
    hit = (e[:, None] == experts[None, :]) & tmask[:, None]
    part = tl.sum(tl.where(hit, w[:, None], 0.0), axis=0)
    cur = tl.load(out_ptr + experts, mask=experts < E, other=0.0)
    tl.store(out_ptr + experts, cur + part, mask=experts < E)


def router_load(weights, expert, E, BT=64):
    T = weights.shape[0]
    acc = torch.zeros((E,), dtype=torch.float32, device=weights.device)
    if T and E:
        router_load_kernel[(triton.cdiv(T, BT),)](weights.contiguous(), expert.contiguous(), acc, T, E, BT=BT,
                                                 BE=triton.next_power_of_2(E))
    return acc.to(weights.dtype)


def reference(weights, expert, E):
    out = torch.zeros((E,), dtype=weights.dtype, device=weights.device)
    return out.index_add_(0, expert, weights)


spec = kcheck.Spec(
    name="hx12_router_load_sum",
    kernel=router_load,
    reference=reference,
    inputs=[kcheck.Tensor("T", name="weights"), kcheck.Index("T", high="E", name="expert"),
            kcheck.Scalar(lambda d: d["E"], name="E")],
    dims={"T": kcheck.Dim(nominal=1024), "E": kcheck.Dim(nominal=8, max=64, large=False)},
    reduce=["T"],
    configs=[{"BT": 64}, {"BT": 256}],
)

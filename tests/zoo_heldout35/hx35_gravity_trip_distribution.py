"""Trip distribution by a production-constrained gravity model (transport planning).

T[i, j] = O[i] * w[i, j] / sum_k w[i, k],   w[i, j] = D[j] / (1 + c[i, j]^2)
with O[i] the trips produced in zone i, D[j] the attraction of zone j and c[i, j] the generalized travel cost
(an inverse-power deterrence). Square BLOCK x BLOCK tiles of the cost matrix: a first pass accumulates each
origin's balancing sum over destination chunks, a second writes the trips. fp32 arithmetic, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def gravity_kernel(c_ptr, o_ptr, d_ptr, t_ptr, Z, s_ci, s_cj, s_o, s_d, s_ti, s_tj, BLOCK: tl.constexpr):
    ri = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    row_mask = ri < Z
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, Z, BLOCK):
        rj = start + tl.arange(0, BLOCK).to(tl.int64)
        col_mask = rj < Z
        mask = row_mask[:, None] & col_mask[None, :]
        c = tl.load(c_ptr + ri[:, None] * s_ci + rj[None, :] * s_cj, mask=mask, other=0.0).to(tl.float32)
        attr = tl.load(d_ptr + rj * s_d, mask=col_mask, other=0.0).to(tl.float32)
        w = tl.where(mask, attr[:, None] / (1.0 + c * c), 0.0)
        total += tl.sum(w, axis=1)
    prod = tl.load(o_ptr + ri * s_o, mask=row_mask, other=0.0).to(tl.float32)
    scale = prod / total
    for start in range(0, Z, BLOCK):
        rj = start + tl.arange(0, BLOCK).to(tl.int64)
        col_mask = rj < Z
        mask = row_mask[:, None] & col_mask[None, :]
        c = tl.load(c_ptr + ri[:, None] * s_ci + rj[None, :] * s_cj, mask=mask, other=0.0).to(tl.float32)
        attr = tl.load(d_ptr + rj * s_d, mask=col_mask, other=0.0).to(tl.float32)
        trips = scale[:, None] * attr[None, :] / (1.0 + c * c)
        tl.store(t_ptr + ri[:, None] * s_ti + rj[None, :] * s_tj, trips.to(t_ptr.dtype.element_ty), mask=mask)


def gravity_trips(cost, production, attraction, BLOCK=32):
    Z = cost.shape[0]
    out = torch.empty_like(cost)
    if Z == 0:
        return out
    gravity_kernel[(triton.cdiv(Z, BLOCK),)](cost, production, attraction, out, Z, cost.stride(0), cost.stride(1),
                                             production.stride(0), attraction.stride(0), out.stride(0),
                                             out.stride(1), BLOCK=BLOCK)
    return out


def reference(cost, production, attraction):
    w = attraction[None, :] / (1.0 + cost * cost)
    return production[:, None] * w / w.sum(-1, keepdim=True)


def zone_sizes(ctx):
    # trip ends per zone: 50 .. 5000
    return (50.0 + 4950.0 * ctx.rand(ctx.dims["Z"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_gravity_trip_distribution",
    kernel=gravity_trips,
    reference=reference,
    inputs=[kcheck.Tensor("Z", "Z", name="cost"), kcheck.Custom(zone_sizes, name="production", dims=("Z",)),
            kcheck.Custom(zone_sizes, name="attraction", dims=("Z",))],
    dims={"Z": kcheck.Dim(nominal=150, max=1024)},
    reduce=["Z"],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

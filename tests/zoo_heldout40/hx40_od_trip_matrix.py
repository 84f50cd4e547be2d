"""Expanded origin-destination trip matrix (traffic / transport planning) from surveyed trips.

Each of the E surveyed trips goes from zone orig[e] to zone dest[e]; a trip from zone o stands for factor[o]
trips of the population (the survey's expansion factor of its origin zone). The [Z, Z] matrix sums them:
od[o, d] = sum over trips e with orig[e] = o and dest[e] = d of factor[o]. Programs of BLOCK trips gather the
factors and add them with fp32 atomics into a zeroed fp32 matrix, returned in the factors' dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def od_scatter_kernel(orig_ptr, dest_ptr, factor_ptr, od_ptr, E, Z, s_f, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < E
    o = tl.load(orig_ptr + offs, mask=mask, other=0).to(tl.int64)
    d = tl.load(dest_ptr + offs, mask=mask, other=0).to(tl.int64)
    f = tl.load(factor_ptr + o * s_f, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(od_ptr + o * Z + d, f, mask=mask)


def od_trip_matrix(orig: torch.Tensor, dest: torch.Tensor, factor: torch.Tensor, BLOCK: int = 512) -> torch.Tensor:
    E = orig.numel()
    Z = factor.numel()
    od = torch.empty((Z, Z), dtype=torch.float32, device=factor.device)
    if E:
        od_scatter_kernel[(triton.cdiv(E, BLOCK),)](orig.contiguous(), dest.contiguous(), factor, od, E, Z,
                                                    factor.stride(0), BLOCK=BLOCK)
    return od.to(factor.dtype)


def reference(orig: torch.Tensor, dest: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    Z = factor.shape[0]
    od = torch.zeros((Z, Z), dtype=factor.dtype, device=factor.device)
    return od.index_put_((orig, dest), factor[orig], accumulate=True)


spec = kcheck.Spec(
    name="hx40_od_trip_matrix",
    kernel=od_trip_matrix,
    reference=reference,
    inputs=[kcheck.Index("E", high="Z", name="orig"), kcheck.Index("E", high="Z", name="dest"),
            kcheck.Tensor("Z", name="factor")],
    dims={"E": kcheck.Dim(nominal=5000), "Z": kcheck.Dim(nominal=40)},
    output_shapes=[("Z", "Z")],
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)

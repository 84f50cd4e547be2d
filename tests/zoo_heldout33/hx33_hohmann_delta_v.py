"""First burn of a Hohmann transfer between circular coplanar orbits of radii r1 and r2 about a body with
gravitational parameter mu::

    dv1 = sqrt(mu / r1) * (sqrt(2 r2 / (r1 + r2)) - 1)

evaluated in the form that stays accurate for neighbouring orbits (r2 close to r1, where the bracket is the
difference of two nearly equal numbers)::

    sqrt(2 r2 / (r1 + r2)) - 1 = ((r2 - r1) / (r1 + r2)) / (sqrt(2 r2 / (r1 + r2)) + 1)

mu is a mode (1: canonical units; 398600.4418 km^3/s^2: the Earth); sqrt(mu) / sqrt(r1) rather than
sqrt(mu / r1), which overflows for tiny radii. Elementwise over BLOCK transfers per program,
fp32 arithmetic, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def hohmann_dv1_kernel(r1_ptr, r2_ptr, dv_ptr, N, sqrt_mu, stride_1, stride_2, stride_o, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < N
    r1 = tl.load(r1_ptr + offs * stride_1, mask=mask, other=1.0).to(tl.float32)
    r2 = tl.load(r2_ptr + offs * stride_2, mask=mask, other=1.0).to(tl.float32)
    total = r1 + r2
    s = tl.sqrt(2.0 * r2 / total)
    dv = (sqrt_mu / tl.sqrt(r1)) * (s - 1.0)
    tl.store(dv_ptr + offs * stride_o, dv.to(dv_ptr.dtype.element_ty), mask=mask)


def hohmann_delta_v(r1: torch.Tensor, r2: torch.Tensor, mu: float = 1.0, BLOCK: int = 1024) -> torch.Tensor:
    N = r1.shape[0]
    dv = torch.empty((N,), dtype=r1.dtype, device=r1.device)
    if N:
        hohmann_dv1_kernel[(triton.cdiv(N, BLOCK),)](r1, r2, dv, N, float(mu) ** 0.5, r1.stride(0), r2.stride(0),
                                                     dv.stride(0), BLOCK=BLOCK)
    return dv


def reference(r1: torch.Tensor, r2: torch.Tensor, mu: float = 1.0) -> torch.Tensor:
    total = r1 + r2
    return (mu ** 0.5 / torch.sqrt(r1)) * ((r2 - r1) / total) / (torch.sqrt(2 * r2 / total) + 1)


spec = kcheck.Spec(
    name="hohmann_delta_v",
    kernel=hohmann_delta_v,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="r1"), kcheck.Tensor("N", name="r2")],
    dims={"N": kcheck.Dim(nominal=4096)},
    params={"mu": [1.0, 398600.4418]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

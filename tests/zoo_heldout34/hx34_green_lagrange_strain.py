"""Green-Lagrange strain of the springs (fibres, truss members) of a deformed mesh:

    E = (l^2 - L^2) / (2 L^2) = d + d^2 / 2,    d = (l - L) / L,

with l the current and L the rest length of each spring. Strains of real structures are tiny (1e-6 .. 1e-2), so the
kernel forms the relative elongation d from the difference of the lengths (exact in floating point when they are
close) and never squares the lengths. One-dimensional, BLOCK springs per program, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def green_strain_kernel(l_ptr, rest_ptr, e_ptr, N, s_l, s_r, s_e, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < N
    length = tl.load(l_ptr + offs * s_l, mask=mask, other=1.0).to(tl.float32)
    rest = tl.load(rest_ptr + offs * s_r, mask=mask, other=1.0).to(tl.float32)
    d = length / rest - 1.0
    strain = d + 0.5 * d * d
    tl.store(e_ptr + offs * s_e, strain.to(e_ptr.dtype.element_ty), mask=mask)


def green_strain(length: torch.Tensor, rest: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    N = length.shape[0]
    e = torch.empty(N, dtype=length.dtype, device=length.device)
    if N:
        green_strain_kernel[(triton.cdiv(N, BLOCK),)](length, rest, e, N, length.stride(0), rest.stride(0),
                                                      e.stride(0), BLOCK=BLOCK)
    return e


def reference(length: torch.Tensor, rest: torch.Tensor) -> torch.Tensor:
    return (length - rest) * (length + rest) / (2.0 * rest * rest)


spec = kcheck.Spec(
    name="green_lagrange_strain",
    kernel=green_strain,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="length"), kcheck.Tensor("N", name="rest_length")],
    dims={"N": kcheck.Dim(nominal=5000, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

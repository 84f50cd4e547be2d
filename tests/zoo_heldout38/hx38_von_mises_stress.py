"""Von Mises equivalent stress at the integration points of a finite-element mesh (materials, solid mechanics):
from each point's Cauchy stress in Voigt order (s11, s22, s33, s23, s13, s12),

    s_vm = sqrt(0.5 * ((s11 - s22)^2 + (s22 - s33)^2 + (s33 - s11)^2) + 3 * (s23^2 + s13^2 + s12^2))

The stresses are [N, 6] rows (one per integration point), BLOCK points per program, the six components read
through the tensor's row and component strides; fp32 arithmetic, the result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def von_mises_kernel(s_ptr, out_ptr, N, stride_n, stride_c, stride_o, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = rows < N
    base = s_ptr + rows * stride_n
    s11 = tl.load(base, mask=mask, other=0.0).to(tl.float32)
    s22 = tl.load(base + stride_c, mask=mask, other=0.0).to(tl.float32)
    s33 = tl.load(base + 2 * stride_c, mask=mask, other=0.0).to(tl.float32)
    s23 = tl.load(base + 3 * stride_c, mask=mask, other=0.0).to(tl.float32)
    s13 = tl.load(base + 4 * stride_c, mask=mask, other=0.0).to(tl.float32)
    s12 = tl.load(base + 5 * stride_c, mask=mask, other=0.0).to(tl.float32)
    d1 = s11 - s22
    d2 = s22 - s33
    d3 = s33 - s11
    vm = tl.sqrt(0.5 * (d1 * d1 + d2 * d2 + d3 * d3) + 3.0 * (s23 * s23 + s13 * s13 + s12 * s12))
    tl.store(out_ptr + rows * stride_o, vm.to(out_ptr.dtype.element_ty), mask=mask)


def von_mises_stress(stress: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    N = stress.shape[0]
    out = torch.empty((N,), dtype=stress.dtype, device=stress.device)
    if N == 0:
        return out
    von_mises_kernel[(triton.cdiv(N, BLOCK),)](stress, out, N, 6, 1, out.stride(0),
                                               BLOCK=BLOCK)
    return out


def reference(stress: torch.Tensor) -> torch.Tensor:
    s11, s22, s33, s23, s13, s12 = stress.unbind(-1)
    return torch.sqrt(0.5 * ((s11 - s22) ** 2 + (s22 - s33) ** 2 + (s33 - s11) ** 2)
                      + 3.0 * (s23 ** 2 + s13 ** 2 + s12 ** 2))


spec = kcheck.Spec(
    name="hx38_von_mises_stress",
    kernel=von_mises_stress,
    reference=reference,
    inputs=[kcheck.Tensor("N", 6, name="voigt_stress")],
    dims={"N": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 32}],
)

"""Total relativistic energy of particles from their momentum and rest mass, in natural units (c = 1)::

    E = sqrt(px^2 + py^2 + pz^2 + m^2)

Momenta are rows of a [M, 3] tensor (any strides), masses a [M] vector. The sum of squares is formed in fp64 so
that neither large nor tiny momenta over- or underflow before the square root; E is stored in the input dtype.
BLOCK particles per program, int64 offsets (M * 3 may pass 2**31).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def relativistic_energy_kernel(p_ptr, m_ptr, e_ptr, M, stride_pm, stride_pc, stride_m, stride_e,
                               BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    mask = rows < M
    p = p_ptr + rows * stride_pm
    px = tl.load(p, mask=mask, other=0.0).to(tl.float64)
    py = tl.load(p + stride_pc, mask=mask, other=0.0).to(tl.float64)
    pz = tl.load(p + 2 * stride_pc, mask=mask, other=0.0).to(tl.float64)
    m = tl.load(m_ptr + rows * stride_m, mask=mask, other=0.0).to(tl.float64)
    e = tl.sqrt(px * px + py * py + pz * pz + m * m)
    tl.store(e_ptr + rows * stride_e, e.to(e_ptr.dtype.element_ty), mask=mask)


def relativistic_energy(p: torch.Tensor, m: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M = p.shape[0]
    e = torch.empty((M,), dtype=p.dtype, device=p.device)
    if M == 0:
        return e
    relativistic_energy_kernel[(triton.cdiv(M, BLOCK),)](p, m, e, M, p.stride(0), p.stride(1), m.stride(0),
                                                         e.stride(0), BLOCK=BLOCK)
    return e


def reference(p: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(p.pow(2).sum(-1) + m * m)


spec = kcheck.Spec(
    name="relativistic_energy",
    kernel=relativistic_energy,
    reference=reference,
    inputs=[kcheck.Tensor("M", 3, name="momentum"), kcheck.Tensor("M", name="mass")],
    dims={"M": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

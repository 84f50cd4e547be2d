"""Relativistic kinetic energy of tracked leptons (particle physics, beta spectroscopy): from each track's momentum
(px, py, pz) in keV/c and the lepton's rest mass m in keV/c^2 (c = 1),

    KE = sqrt(|p|^2 + m^2) - m  =  |p|^2 / (sqrt(|p|^2 + m^2) + m)

in keV, evaluated in the second form, which has no subtraction, in fp32. Tracks [N, 3] are taken BLOCK at a time,
the three components read through the tensor's strides; the mass is a mode (electron, muon).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"

ELECTRON_KEV = 510.99895
MUON_KEV = 105658.3755


@triton.jit
def kinetic_energy_kernel(p_ptr, ke_ptr, N, mass, stride_pn, stride_pc, stride_k, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = rows < N
    base = p_ptr + rows * stride_pn
    px = tl.load(base, mask=mask, other=0.0).to(tl.float32)
    py = tl.load(base + stride_pc, mask=mask, other=0.0).to(tl.float32)
    pz = tl.load(base + 2 * stride_pc, mask=mask, other=0.0).to(tl.float32)
    p2 = px * px + py * py + pz * pz
    ke = tl.sqrt(p2 + mass * mass) - mass
    ke = tl.where(p2 == float("inf"), p2, ke)  # inf / inf: an infinite momentum has infinite energy
    tl.store(ke_ptr + rows * stride_k, ke.to(ke_ptr.dtype.element_ty), mask=mask)


def lepton_kinetic_energy(p: torch.Tensor, mass_kev: float = ELECTRON_KEV, BLOCK: int = 256) -> torch.Tensor:
    N = p.shape[0]
    ke = torch.empty((N,), dtype=p.dtype, device=p.device)
    if N == 0:
        return ke
    kinetic_energy_kernel[(triton.cdiv(N, BLOCK),)](p, ke, N, mass_kev, p.stride(0), p.stride(1), ke.stride(0),
                                                    BLOCK=BLOCK)
    return ke


def reference(p: torch.Tensor, mass_kev: float = ELECTRON_KEV) -> torch.Tensor:
    p2 = (p * p).sum(-1)
    return torch.where(torch.isinf(p2), p2, p2 / (torch.sqrt(p2 + mass_kev ** 2) + mass_kev))


spec = kcheck.Spec(
    name="hx38_lepton_kinetic_energy",
    kernel=lepton_kinetic_energy,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="momentum_kev")],
    dims={"N": kcheck.Dim(nominal=5000)},
    params={"mass_kev": [ELECTRON_KEV, MUON_KEV]},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

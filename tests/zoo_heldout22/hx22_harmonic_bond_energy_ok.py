"""Harmonic bond energies of a molecular system: E[b] = K_BOND / 2 * (|r_i - r_j| - R0)^2 for bond b = (i, j).

Positions are [N, 3]; bonds are an [B, 2] list of atom indices (int64). Each program takes BLOCK_B bonds, gathers
both atoms' coordinates as [BLOCK_B, 4] tiles (fourth lane masked), all in fp32 with int64 offsets, strides
honoured. Energies are returned in fp32 whatever the coordinates' precision.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

K_BOND, R0 = 2.0, 1.0


@triton.jit
def bond_energy_kernel(pos_ptr, bond_ptr, out_ptr, B, spn, spd, sbb, sbk, half_k, r0, BLOCK_B: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    b = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    bmask = b < B
    i = tl.load(bond_ptr + b * sbb, mask=bmask, other=0)
    j = tl.load(bond_ptr + b * sbb + sbk, mask=bmask, other=0)
    d3 = tl.arange(0, 4)
    mask = bmask[:, None] & (d3 < 3)[None, :]
    ri = tl.load(pos_ptr + i[:, None] * spn + d3[None, :] * spd, mask=mask, other=0.0).to(tl.float32)
    rj = tl.load(pos_ptr + j[:, None] * spn + d3[None, :] * spd, mask=mask, other=0.0).to(tl.float32)
    d = ri - rj
    dist = tl.sqrt(tl.sum(d * d, axis=1))
    stretch = dist - r0
    tl.store(out_ptr + b, half_k * stretch * stretch, mask=bmask)


def bond_energy(pos, bonds, BLOCK_B=128):
    B = bonds.shape[0]
    out = torch.empty((B,), dtype=torch.float32, device=pos.device)
    if B:
        bond_energy_kernel[(triton.cdiv(B, BLOCK_B),)](pos, bonds, out, B, pos.stride(0), pos.stride(1),
                                                       bonds.stride(0), bonds.stride(1), 0.5 * K_BOND, R0,
                                                       BLOCK_B=BLOCK_B)
    return out


def reference(pos, bonds):
    d = pos[bonds[:, 0]] - pos[bonds[:, 1]]
    dist = torch.sqrt((d * d).sum(-1))
    return 0.5 * K_BOND * (dist - R0) ** 2


spec = kcheck.Spec(
    name="hx22_harmonic_bond_energy_ok",
    kernel=bond_energy,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="pos"), kcheck.Index("B", 2, high="N", name="bonds")],
    dims={"N": kcheck.Dim(nominal=500, real=()), "B": kcheck.Dim(nominal=1000, real=(20000,))},
    output_dtypes=[torch.float32],
    configs=[{"BLOCK_B": 128}, {"BLOCK_B": 32}],
)

"""SPH (smoothed-particle hydrodynamics) density summation with the poly6 kernel:

    rho[i] = m * sum_j W(|r_i - r_j|, h),    W(r, h) = 315 / (64 pi h^9) * (h^2 - r^2)^3 for r < h, else 0

(the particle itself included). The [N, N] pair space is split into BLOCK_I x BLOCK_J tiles, one program each;
a program sums its tile over j and adds the partial densities to an fp32 accumulator with atomics, which the
launcher zeroes first and casts to the positions' dtype at the end. Positions are [N, 3], read through their
strides; int64 offsets.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"

MASS = 0.02


@triton.jit
def sph_density_kernel(pos_ptr, rho_ptr, N, h2, coef, s_pn, s_pc,
                       BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    pid_i = tl.program_id(0).to(tl.int64)
    pid_j = tl.program_id(1).to(tl.int64)
    i = pid_i * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)
    j = pid_j * BLOCK_J + tl.arange(0, BLOCK_J).to(tl.int64)
    mi = i < N
    mj = j < N
    xi = tl.load(pos_ptr + i * s_pn, mask=mi, other=0.0).to(tl.float32)
    yi = tl.load(pos_ptr + i * s_pn + s_pc, mask=mi, other=0.0).to(tl.float32)
    zi = tl.load(pos_ptr + i * s_pn + 2 * s_pc, mask=mi, other=0.0).to(tl.float32)
    xj = tl.load(pos_ptr + j * s_pn, mask=mj, other=0.0).to(tl.float32)
    yj = tl.load(pos_ptr + j * s_pn + s_pc, mask=mj, other=0.0).to(tl.float32)
    zj = tl.load(pos_ptr + j * s_pn + 2 * s_pc, mask=mj, other=0.0).to(tl.float32)
    dx = xi[:, None] - xj[None, :]
    dy = yi[:, None] - yj[None, :]
    dz = zi[:, None] - zj[None, :]
    r2 = dx * dx + dy * dy + dz * dz
    d = h2 - r2
    w = tl.where(mj[None, :] & (r2 < h2), d * d * d, 0.0)
    part = coef * tl.sum(w, axis=1)
    tl.atomic_add(rho_ptr + i, part, mask=mi)


def sph_density(pos: torch.Tensor, h: float = 1.0, BLOCK_I: int = 32, BLOCK_J: int = 64) -> torch.Tensor:
    N = pos.shape[0]
    rho = torch.empty((N,), dtype=torch.float32, device=pos.device)
    if N:
        coef = MASS * 315.0 / (64.0 * math.pi * h ** 9)
        grid = (triton.cdiv(N, BLOCK_I), triton.cdiv(N, BLOCK_J))
        sph_density_kernel[grid](pos, rho, N, h * h, coef, pos.stride(0), pos.stride(1),
                                 BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
    return rho.to(pos.dtype)


def reference(pos: torch.Tensor, h: float = 1.0) -> torch.Tensor:
    diff = pos[:, None, :] - pos[None, :, :]
    r2 = (diff * diff).sum(-1)
    w = torch.where(r2 < h * h, (h * h - r2) ** 3, torch.zeros_like(r2))
    return MASS * 315.0 / (64.0 * math.pi * h ** 9) * w.sum(-1)


spec = kcheck.Spec(
    name="sph_density",
    kernel=sph_density,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="positions")],
    dims={"N": kcheck.Dim(nominal=300, max=4096)},
    reduce=["N"],
    params={"h": [1.0, 2.5]},
    configs=[{"BLOCK_I": 32, "BLOCK_J": 64}, {"BLOCK_I": 16, "BLOCK_J": 16}],
)

"""Material-point-method grid update: the new velocity of every grid node from the momentum and force transferred
to it by the particles,

    v[i] = (p[i] + dt * f[i]) / m[i]    where the node received mass (m[i] != 0),   v[i] = 0 elsewhere.

p and f are [N, 3] (x, y, z components), m is [N]; dt is a mode. One program takes BLOCK_N nodes, the 3 components
as a padded axis of 4 lanes, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def grid_velocity_kernel(p_ptr, f_ptr, m_ptr, v_ptr, N, dt, s_pn, s_pc, s_fn, s_fc, s_m, s_vn, s_vc,
                         BLOCK_N: tl.constexpr):
    nodes = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    comp = tl.arange(0, 4).to(tl.int64)
    nmask = nodes < N
    mask = nmask[:, None] & (comp < 3)[None, :]
    p = tl.load(p_ptr + nodes[:, None] * s_pn + comp[None, :] * s_pc, mask=mask, other=0.0).to(tl.float32)
    f = tl.load(f_ptr + nodes[:, None] * s_fn + comp[None, :] * s_fc, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + nodes * s_m, mask=nmask, other=0.0).to(tl.float32)
    v = (p + dt * f) / m[:, None]
    tl.store(v_ptr + nodes[:, None] * s_vn + comp[None, :] * s_vc, v.to(v_ptr.dtype.element_ty), mask=mask)


def grid_velocity(momentum: torch.Tensor, force: torch.Tensor, mass: torch.Tensor, dt: float = 1e-3,
                  BLOCK_N: int = 256) -> torch.Tensor:
    N = mass.shape[0]
    v = torch.empty((N, 3), dtype=momentum.dtype, device=momentum.device)
    if N:
        grid_velocity_kernel[(triton.cdiv(N, BLOCK_N),)](momentum, force, mass, v, N, dt, momentum.stride(0),
                                                         momentum.stride(1), force.stride(0), force.stride(1),
                                                         mass.stride(0), v.stride(0), v.stride(1), BLOCK_N=BLOCK_N)
    return v


def reference(momentum: torch.Tensor, force: torch.Tensor, mass: torch.Tensor, dt: float = 1e-3) -> torch.Tensor:
    m = mass[:, None]
    filled = m != 0
    return torch.where(filled, (momentum + dt * force) / torch.where(filled, m, 1.0), 0.0)


spec = kcheck.Spec(
    name="mpm_grid_velocity",
    kernel=grid_velocity,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="momentum"), kcheck.Tensor("N", 3, name="force"),
            kcheck.Tensor("N", name="mass")],
    dims={"N": kcheck.Dim(nominal=2000, real=())},
    params={"dt": [1e-3, 0.05]},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

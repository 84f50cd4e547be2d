"""Kinetic energy per particle: E[i] = 0.5 * m[i] * sum_d v[i, d]^2, a block of particles per program, fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def kinetic_kernel(m_ptr, v_ptr, e_ptr, P, D, svp, svd, BLOCK_P: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    rm = rows < P
    acc = tl.zeros((BLOCK_P,), tl.float32)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D).to(tl.int64)
        mask = rm[:, None] & (cols < D)[None, :]
        v = tl.load(v_ptr + rows[:, None] * svp + cols[None, :] * svd, mask=mask, other=0.0).to(tl.float32)
        acc += tl.sum(v * v, axis=1)
    m = tl.load(m_ptr + rows, mask=rm, other=0.0).to(tl.float32)
    tl.store(e_ptr + rows, (0.5 * m * acc).to(e_ptr.dtype.element_ty), mask=rm)


def kinetic_energy(mass: torch.Tensor, velocity: torch.Tensor, BLOCK_P: int = 64, BLOCK_D: int = 16) -> torch.Tensor:
    P, D = velocity.shape
    mass = mass.contiguous()
    e = torch.empty((P,), dtype=velocity.dtype, device=velocity.device)
    if P:
        kinetic_kernel[(triton.cdiv(P, BLOCK_P),)](mass, velocity, e, P, D, velocity.stride(0), velocity.stride(1),
                                                   BLOCK_P=BLOCK_P, BLOCK_D=BLOCK_D)
    return e


def reference(mass: torch.Tensor, velocity: torch.Tensor) -> torch.Tensor:
    return 0.5 * mass * (velocity * velocity).sum(-1)


spec = kcheck.Spec(
    name="hx21_kinetic_energy_ok",
    kernel=kinetic_energy,
    reference=reference,
    inputs=[kcheck.Tensor("P", name="mass"), kcheck.Tensor("P", "D", name="velocity")],
    dims={"P": kcheck.Dim(nominal=1000, max=4096), "D": kcheck.Dim(nominal=3, max=64, real=(3,))},
    reduce=["D"],
    configs=[{"BLOCK_P": 64, "BLOCK_D": 16}, {"BLOCK_P": 16, "BLOCK_D": 4}],
)
BUG_CLASS = None

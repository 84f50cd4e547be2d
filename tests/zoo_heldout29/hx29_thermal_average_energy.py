"""Boltzmann-weighted average energy of conformer ensembles: <E> = sum_i E_i w_i / sum_i w_i with
w_i = exp(-beta (E_i - E_min)), beta = 1 / kT in the energies' units. Subtracting the ensemble's lowest energy
leaves the ratio unchanged and keeps every weight in (0, 1], so that neither absolute energies (-1e4 kcal/mol for a
whole molecule) nor a wide spread overflow or underflow the weights.

E is [ensembles, conformers]. Each program takes BLOCK_M ensembles: a first pass finds each row's minimum, a second
sums w and E * w per lane in fp32. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def boltzmann_mean_kernel(e_ptr, out_ptr, M, N, beta, s_em, s_en, s_o,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    e_row = e_ptr + rows[:, None] * s_em
    low = tl.full([BLOCK_M, BLOCK_N], float("inf"), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        e = tl.load(e_row + cols[None, :] * s_en, mask=mask, other=float("inf")).to(tl.float32)
        low = tl.minimum(low, e)
    e_min = tl.min(low, axis=1)
    z = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    ez = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        e = tl.load(e_row + cols[None, :] * s_en, mask=mask, other=0.0).to(tl.float32)
        w = tl.exp(-beta * e)
        w = tl.where(mask, w, 0.0)
        z += w
        ez += tl.where(mask, e * w, 0.0)
    mean = tl.sum(ez, axis=1) / tl.sum(z, axis=1)
    tl.store(out_ptr + rows * s_o, mean.to(out_ptr.dtype.element_ty), mask=row_mask)


def thermal_average_energy(energies: torch.Tensor, beta: float = 1.0, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = energies.shape
    out = torch.empty((M,), dtype=energies.dtype, device=energies.device)
    if M == 0:
        return out
    block_m = 8
    boltzmann_mean_kernel[(triton.cdiv(M, block_m),)](
        energies, out, M, N, beta, energies.stride(0), energies.stride(1), out.stride(0),
        BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(energies: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    w = torch.exp(-beta * (energies - energies.amin(dim=-1, keepdim=True)))
    return (energies * w).sum(-1) / w.sum(-1)


spec = kcheck.Spec(
    name="thermal_average_energy",
    kernel=thermal_average_energy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="energies")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    reduce=["N"],
    params={"beta": [1.0, 0.1]},
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)

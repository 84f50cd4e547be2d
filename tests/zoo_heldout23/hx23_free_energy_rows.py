"""Helmholtz free energy of each row of state energies (statistical mechanics): F = -kT * log(sum_j exp(-E_j / kT)),
i.e. -kT * logsumexp(-E / kT) over the last dimension; kT is a mode.

One row block per row (N <= 8192), several rows per program; computed in fp32 with the max shift
(shift = max_j(-E_j / kT)), so exp never overflows; a +-inf shift (an energy of -inf, or a row of +inf energies)
is taken as 0 so that the result is -inf or +inf as the reference's, not NaN. An empty row gives +inf.
"""

import torch
import triton
import triton.language as tl

import kcheck

TILE = 4096


@triton.jit
def free_energy_kernel(e_ptr, out_ptr, M, N, sem, sen, kt, inv_kt, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    e = tl.load(e_ptr + rows[:, None] * sem + cols[None, :] * sen, mask=mask, other=0.0).to(tl.float32)
    z = tl.where(mask, -e * inv_kt, -float("inf"))
    shift = tl.max(z, axis=1)
    shift = tl.where(tl.abs(shift) == float("inf"), 0.0, shift)
    lse = tl.log(tl.sum(tl.exp(z), axis=1))
    tl.store(out_ptr + rows, (-kt * lse).to(out_ptr.dtype.element_ty), mask=row_mask)


def free_energy(energies: torch.Tensor, kT: float = 1.0) -> torch.Tensor:
    M, N = energies.shape
    out = torch.empty((M,), dtype=energies.dtype, device=energies.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("inf"))
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    free_energy_kernel[(triton.cdiv(M, block_m),)](energies, out, M, N, energies.stride(0), energies.stride(1),
                                                   kT, 1.0 / kT, BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(energies: torch.Tensor, kT: float = 1.0) -> torch.Tensor:
    return -kT * torch.logsumexp(-energies / kT, dim=-1)


BUG_CLASS = "exp-overflow"

spec = kcheck.Spec(
    name="hx23_free_energy_rows",
    kernel=free_energy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="energies")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=512, max=8192, real=(37, 2880))},
    reduce=["N"],
    params={"kT": [1.0, 0.25]},
)

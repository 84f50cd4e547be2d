"""Boltzmann-averaged energy of a conformer ensemble (computational chemistry): E is [molecules, conformers] of
relative energies; with kT the thermal energy in the same unit (0.593 kcal/mol or 2.479 kJ/mol at 298 K), for each
molecule

    <E> = sum_k E_k exp(-E_k / kT) / sum_k exp(-E_k / kT)

computed stably with the lowest energy E_min of the row: w_k = exp(-(E_k - E_min) / kT) (every weight in (0, 1]),
<E> = E_min + sum_k w_k (E_k - E_min) / sum_k w_k. Two passes over each row in BLOCK_K chunks (minimum, then the
weighted sums), BLOCK_M rows per program, fp32, int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def boltzmann_energy_kernel(e_ptr, out_ptr, M, K, inv_kt, s_m, s_k,
                            BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = e_ptr + rows[:, None] * s_m
    lo = tl.full([BLOCK_M, BLOCK_K], float("inf"), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K).to(tl.int64)
        mask = row_mask[:, None] & (cols < K)[None, :]
        e = tl.load(row_ptr + cols[None, :] * s_k, mask=mask, other=float("inf")).to(tl.float32)
        lo = tl.minimum(lo, e)
    e_min = tl.min(lo, axis=1)
    wsum = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    wesum = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K).to(tl.int64)
        mask = row_mask[:, None] & (cols < K)[None, :]
        e = tl.load(row_ptr + cols[None, :] * s_k, mask=mask, other=0.0).to(tl.float32)
        de = e - e_min[:, None]
        w = tl.where(mask, tl.exp(-e * inv_kt), 0.0)
        wsum += w
        wesum += tl.where(mask, w * de, 0.0)
    avg = e_min + tl.sum(wesum, axis=1) / tl.sum(wsum, axis=1)
    tl.store(out_ptr + rows, avg.to(out_ptr.dtype.element_ty), mask=row_mask)


def conformer_boltzmann_energy(e: torch.Tensor, kT: float = 0.593, BLOCK_K: int = 128) -> torch.Tensor:
    M, K = e.shape
    out = torch.empty((M,), dtype=e.dtype, device=e.device)
    if M == 0:
        return out
    block_k = min(BLOCK_K, triton.next_power_of_2(K))
    block_m = max(1, min(2048 // block_k, triton.next_power_of_2(M)))
    boltzmann_energy_kernel[(triton.cdiv(M, block_m),)](e, out, M, K, 1.0 / kT, e.stride(0), e.stride(1),
                                                       BLOCK_M=block_m, BLOCK_K=block_k)
    return out


def reference(e: torch.Tensor, kT: float) -> torch.Tensor:
    e_min = e.min(-1, keepdim=True).values
    de = e - e_min
    w = torch.exp(-de / kT)
    return e_min.squeeze(-1) + (w * de).sum(-1) / w.sum(-1)


spec = kcheck.Spec(
    name="hx37_conformer_boltzmann_energy",
    kernel=conformer_boltzmann_energy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="energies")],
    dims={"M": kcheck.Dim(nominal=96), "K": kcheck.Dim(nominal=200, min=1)},
    params={"kT": [0.593, 2.479]},
    reduce=["K"],
    configs=[{"BLOCK_K": 128}, {"BLOCK_K": 32}],
)

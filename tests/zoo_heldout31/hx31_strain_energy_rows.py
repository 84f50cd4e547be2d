"""Strain energy of M finite-element patches: U[m] = 0.5 * sum_n sigma[m, n] * eps[m, n] over the N integration
points (stress times strain, per unit volume). The point axis is read in BLOCK_N chunks into a per-lane fp32
running sum, summed across lanes at the end; several patches per program, int64 row offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def strain_energy_kernel(s_ptr, e_ptr, out_ptr, M, N, s_sm, s_sn, s_em, s_en,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=s_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        sig = tl.load(s_ptr + rows[:, None] * s_sm + cols[None, :] * s_sn, mask=mask, other=0.0)
        eps = tl.load(e_ptr + rows[:, None] * s_em + cols[None, :] * s_en, mask=mask, other=0.0)
        acc += sig.to(acc.dtype) * eps.to(acc.dtype)
    u = 0.5 * tl.sum(acc.to(tl.float32), axis=1)
    tl.store(out_ptr + rows, u.to(out_ptr.dtype.element_ty), mask=row_mask)


def strain_energy(sigma: torch.Tensor, eps: torch.Tensor, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = sigma.shape
    out = torch.empty((M,), dtype=sigma.dtype, device=sigma.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(1024 // block_n, triton.next_power_of_2(M)))
    strain_energy_kernel[(triton.cdiv(M, block_m),)](sigma, eps, out, M, N, sigma.stride(0), sigma.stride(1),
                                                    eps.stride(0), eps.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(sigma: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    return 0.5 * (sigma * eps).sum(-1)


spec = kcheck.Spec(
    name="hx31_strain_energy_rows",
    kernel=strain_energy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="sigma"), kcheck.Tensor("M", "N", name="eps")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=4096)},
    reduce=["N"],
    configs=[{"BLOCK_N": 64}, {"BLOCK_N": 256}],
)

"""Fermi-Dirac grand potential per single-particle state, differentiable in the energies and the chemical
potentials (a smeared-occupation layer of a machine-learned electronic-structure model):

    omega[m, n] = -kT * log(1 + exp((mu[m] - e[m, n]) / kT)),

for system m with chemical potential mu[m] and state energies e[m, n]. Its derivatives are the occupations
f = 1 / (1 + exp((e - mu) / kT)): d omega / d e = f and d omega / d mu = -f, so the backward is

    de[m, n] = g[m, n] * f[m, n],        dmu[m] = -sum_n g[m, n] * f[m, n].

Forward and backward are Triton kernels over BLOCK_M whole rows (N <= 1024), fp32 arithmetic; softplus is taken in
its stable form max(s, 0) + log(1 + exp(-|s|)), the occupation as 1 / (1 + exp(z)) (0 when exp overflows). kT is a
mode.
"""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"
TILE = 4096


@triton.jit
def grand_potential_fwd_kernel(e_ptr, mu_ptr, w_ptr, M, N, kt, s_em, s_en, s_mu, s_wm, s_wn,
                               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    mask = rmask[:, None] & (cols < N)[None, :]
    e = tl.load(e_ptr + rows[:, None] * s_em + cols[None, :] * s_en, mask=mask, other=0.0).to(tl.float32)
    mu = tl.load(mu_ptr + rows * s_mu, mask=rmask, other=0.0).to(tl.float32)
    s = (mu[:, None] - e) / kt
    sp = tl.log(1.0 + tl.exp(s))
    tl.store(w_ptr + rows[:, None] * s_wm + cols[None, :] * s_wn, (-kt * sp).to(w_ptr.dtype.element_ty), mask=mask)


@triton.jit
def grand_potential_bwd_kernel(g_ptr, e_ptr, mu_ptr, de_ptr, dmu_ptr, M, N, kt, s_gm, s_gn, s_em, s_en, s_mu,
                               s_dem, s_den, s_dmu, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    mask = rmask[:, None] & (cols < N)[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    e = tl.load(e_ptr + rows[:, None] * s_em + cols[None, :] * s_en, mask=mask, other=0.0).to(tl.float32)
    mu = tl.load(mu_ptr + rows * s_mu, mask=rmask, other=0.0).to(tl.float32)
    z = (e - mu[:, None]) / kt
    occ = 1.0 / (1.0 + tl.exp(z))
    gf = tl.where(mask, g * occ, 0.0)
    tl.store(de_ptr + rows[:, None] * s_dem + cols[None, :] * s_den, gf.to(de_ptr.dtype.element_ty), mask=mask)
    tl.store(dmu_ptr + rows * s_dmu, (-tl.sum(gf, axis=1)).to(dmu_ptr.dtype.element_ty), mask=rmask)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


class GrandPotential(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, e: torch.Tensor, mu: torch.Tensor, kt: float) -> torch.Tensor:
        M, N = e.shape
        w = torch.empty((M, N), dtype=e.dtype, device=e.device)
        ctx.save_for_backward(e, mu)
        ctx.kt = kt
        if M and N:
            block_m, block_n, programs = _blocks(M, N)
            grand_potential_fwd_kernel[(programs,)](e, mu, w, M, N, kt, e.stride(0), e.stride(1), mu.stride(0),
                                                    w.stride(0), w.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
        return w

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor):
        e, mu = ctx.saved_tensors
        M, N = e.shape
        de = torch.empty((M, N), dtype=e.dtype, device=e.device)
        dmu = torch.empty((M,), dtype=mu.dtype, device=mu.device)
        if M == 0:
            return de, dmu, None
        if N == 0:
            return de, dmu.zero_(), None
        block_m, block_n, programs = _blocks(M, N)
        grand_potential_bwd_kernel[(programs,)](g, e, mu, de, dmu, M, N, ctx.kt, g.stride(0), g.stride(1),
                                                e.stride(0), e.stride(1), mu.stride(0), de.stride(0), de.stride(1),
                                                dmu.stride(0), BLOCK_M=block_m, BLOCK_N=block_n)
        return de, dmu, None


def grand_potential(energies: torch.Tensor, mu: torch.Tensor, kt: float = 1.0) -> torch.Tensor:
    return GrandPotential.apply(energies, mu, kt)


def reference(energies: torch.Tensor, mu: torch.Tensor, kt: float = 1.0) -> torch.Tensor:
    s = (mu[:, None] - energies) / kt
    return -kt * torch.nn.functional.softplus(s)


spec = kcheck.Spec(
    name="fermi_grand_potential_train",
    kernel=grand_potential,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="energies"), kcheck.Tensor("M", name="mu")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=96, max=1024, real=())},
    params={"kt": [1.0, 0.25]},
    grad=True,
)

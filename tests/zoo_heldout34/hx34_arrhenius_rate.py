"""Arrhenius rate constants of M reactions over a grid of N temperatures: k[m, n] = A_m exp(-Ea_m / (R T_n)).

The pre-exponential factor is given as ln A (it spans tens of decades across a mechanism), the activation energy
in kJ/mol, the temperatures in kelvin. The exponent ln A - Ea / (R T) is formed in fp32 and exponentiated once.
Tiles of BLOCK_M reactions by BLOCK_N temperatures, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"

R_KJ = 8.314462618e-3  # gas constant, kJ / (mol K)


@triton.jit
def arrhenius_kernel(lna_ptr, ea_ptr, t_ptr, k_ptr, M, N, r_gas, s_lna, s_ea, s_t, s_km, s_kn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    cmask = cols < N
    lna = tl.load(lna_ptr + rows * s_lna, mask=rmask, other=0.0).to(tl.float32)
    ea = tl.load(ea_ptr + rows * s_ea, mask=rmask, other=0.0).to(tl.float32)
    temp = tl.load(t_ptr + cols * s_t, mask=cmask, other=1.0).to(tl.float32)
    inv_rt = 1.0 / (r_gas * temp)
    k = tl.exp(lna[:, None] - ea[:, None] * inv_rt[None, :])
    mask = rmask[:, None] & cmask[None, :]
    tl.store(k_ptr + rows[:, None] * s_km + cols[None, :] * s_kn, k.to(k_ptr.dtype.element_ty), mask=mask)


def arrhenius_rate(ln_a: torch.Tensor, ea: torch.Tensor, temperature: torch.Tensor, BLOCK_M: int = 16,
                   BLOCK_N: int = 64) -> torch.Tensor:
    M, N = ln_a.shape[0], temperature.shape[0]
    k = torch.empty((M, N), dtype=ln_a.dtype, device=ln_a.device)
    if M == 0 or N == 0:
        return k
    grid = (triton.cdiv(M, BLOCK_M), N // BLOCK_N)
    arrhenius_kernel[grid](ln_a, ea, temperature, k, M, N, R_KJ, ln_a.stride(0), ea.stride(0), temperature.stride(0),
                           k.stride(0), k.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return k


def reference(ln_a: torch.Tensor, ea: torch.Tensor, temperature: torch.Tensor) -> torch.Tensor:
    return torch.exp(ln_a[:, None] - ea[:, None] / (R_KJ * temperature[None, :]))


def temperatures(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Kelvin, 250 K to 1500 K (atmospheric to combustion chemistry)."""
    return (250.0 + 1250.0 * ctx.rand(ctx.dims["N"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="arrhenius_rate",
    kernel=arrhenius_rate,
    reference=reference,
    inputs=[kcheck.Tensor("M", name="ln_a"), kcheck.Tensor("M", name="ea"),
            kcheck.Custom(temperatures, name="temperature", dims=("N",))],
    dims={"M": kcheck.Dim(nominal=48, real=()), "N": kcheck.Dim(nominal=256, real=(), large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 128}],
)

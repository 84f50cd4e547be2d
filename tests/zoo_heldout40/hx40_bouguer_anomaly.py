"""Simple Bouguer gravity anomaly on a survey grid (geodesy / gravimetry), in mGal.

g_obs and h are [M, N] grids (M latitude rows of N stations: observed gravity in mGal, station height in m), gamma
the [M] normal gravity of each latitude row. With the free-air gradient 0.3086 mGal/m and the Bouguer slab
2 pi G rho = 0.04193 rho mGal/m (rho in g/cm^3)::

    dg_B = g_obs - gamma + (0.3086 - 0.04193 * rho) * h

2-D grid of BLOCK_M x BLOCK_N tiles, fp32 arithmetic, strides honoured, int64 row and column offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

FREE_AIR = tl.constexpr(0.3086)
SLAB = tl.constexpr(0.04193)


@triton.jit
def bouguer_kernel(g_ptr, h_ptr, gamma_ptr, out_ptr, M, N, rho, s_gm, s_gn, s_hm, s_hn, s_y, s_om, s_on,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=mask, other=0.0).to(tl.float32)
    gamma = tl.load(gamma_ptr + rows * s_y, mask=row_mask, other=0.0).to(tl.float32)
    gradient = FREE_AIR - SLAB * rho
    dg = g - gamma[:, None] + gradient * h
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, dg.to(out_ptr.dtype.element_ty), mask=mask)


def bouguer_anomaly(g_obs: torch.Tensor, height: torch.Tensor, gamma: torch.Tensor, density: float = 2.67,
                    BLOCK_M: int = 16, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = g_obs.shape
    out = torch.empty((M, N), dtype=g_obs.dtype, device=g_obs.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    bouguer_kernel[grid](g_obs, height, gamma, out, M, N, density, g_obs.stride(0), g_obs.stride(1),
                         height.stride(0), height.stride(1), gamma.stride(0), out.stride(0), out.stride(1),
                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(g_obs: torch.Tensor, height: torch.Tensor, gamma: torch.Tensor, density: float = 2.67) -> torch.Tensor:
    return g_obs - gamma[:, None] + 0.3086 * height - 0.04193 * density * height


spec = kcheck.Spec(
    name="hx40_bouguer_anomaly",
    kernel=bouguer_anomaly,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="g_obs"), kcheck.Tensor("M", "N", name="height"),
            kcheck.Tensor("M", name="gamma")],
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=300)},
    params={"density": [2.67, 2.2]},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 64, "BLOCK_N": 32}],
)

"""Bulk-formula surface wind stress over an ocean grid: tau = rho_air * C_d(|U|) * |U| * (u, v).

The drag coefficient follows Large & Pond (1981): C_d = 1.2e-3 below 11 m/s and (0.49 + 0.065 |U|) * 1e-3 above,
with |U| the 10 m wind speed. u and v are [M, N] grids (latitude rows, longitude columns, any strides); the two stress
components are returned as separate grids. 2-D tiles, fp32 arithmetic, row offsets in int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

RHO_AIR = 1.225  # kg / m^3


@triton.jit
def wind_stress_kernel(u_ptr, v_ptr, tx_ptr, ty_ptr, M, N, rho, s_um, s_un, s_vm, s_vn, s_om, s_on,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    u = tl.load(u_ptr + rows[:, None] * s_um + cols[None, :] * s_un, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + rows[:, None] * s_vm + cols[None, :] * s_vn, mask=mask, other=0.0).to(tl.float32)
    speed = tl.sqrt(u * u + v * v)
    cd = tl.where(speed < 11.0, 1.2e-3, (0.49 + 0.065 * speed) * 1e-3)
    k = rho * cd * speed
    out = rows[:, None] * s_om + cols[None, :] * s_on
    tl.store(tx_ptr + out, (k * u).to(tx_ptr.dtype.element_ty), mask=mask)
    tl.store(ty_ptr + out, (k * v).to(ty_ptr.dtype.element_ty), mask=mask)


def wind_stress(u: torch.Tensor, v: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64):
    M, N = u.shape
    tx = torch.empty((M, N), dtype=u.dtype, device=u.device)
    ty = torch.empty((M, N), dtype=u.dtype, device=u.device)
    if M == 0 or N == 0:
        return tx, ty
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    wind_stress_kernel[grid](u, v, tx, ty, M, N, RHO_AIR, u.stride(0), u.stride(1), v.stride(0), v.stride(1),
                             tx.stride(0), tx.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return tx, ty


def reference(u: torch.Tensor, v: torch.Tensor):
    speed = torch.sqrt(u * u + v * v)
    cd = torch.where(speed < 11.0, torch.full_like(speed, 1.2e-3), (0.49 + 0.065 * speed) * 1e-3)
    k = RHO_AIR * cd * speed
    return k * u, k * v


spec = kcheck.Spec(
    name="wind_stress",
    kernel=wind_stress,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="u"), kcheck.Tensor("M", "N", name="v")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=192, real=(), large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 8, "BLOCK_N": 128}],
)

"""Ekman volume transport per unit width from a gridded wind-stress field (oceanography).

For wind stress (tau_x, tau_y) on a latitude x longitude grid and the Coriolis parameter f of each latitude row,
the depth-integrated Ekman transport of the surface layer is

    M_x =  tau_y / (rho0 * f)        M_y = -tau_x / (rho0 * f)

(m^2/s, rho0 = 1025 kg/m^3). f is taken as given (a precomputed table, 2 * Omega * sin(lat), never zero: the grid
leaves out the equatorial band where the balance does not hold). Each program handles a BLOCK_Y x BLOCK_X tile of
the grid and writes both components; strides are honoured and row offsets are int64.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

RHO0 = 1025.0
OMEGA = 7.2921159e-5


@triton.jit
def ekman_kernel(taux_ptr, tauy_ptr, f_ptr, mx_ptr, my_ptr, Y, X, rho0,
                 s_ty, s_tx, s_uy, s_ux, s_f, s_my, s_mx, s_ny, s_nx,
                 BLOCK_Y: tl.constexpr, BLOCK_X: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_Y + tl.arange(0, BLOCK_Y).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_X + tl.arange(0, BLOCK_X).to(tl.int64)
    row_mask = rows < Y
    mask = row_mask[:, None] & (cols < X)[None, :]
    taux = tl.load(taux_ptr + rows[:, None] * s_ty + cols[None, :] * s_tx, mask=mask, other=0.0).to(tl.float32)
    tauy = tl.load(tauy_ptr + rows[:, None] * s_uy + cols[None, :] * s_ux).to(tl.float32)
    f = tl.load(f_ptr + rows * s_f, mask=row_mask, other=1.0).to(tl.float32)
    inv = 1.0 / (rho0 * f)
    mx = tauy * inv[:, None]
    my = -taux * inv[:, None]
    tl.store(mx_ptr + rows[:, None] * s_my + cols[None, :] * s_mx, mx.to(mx_ptr.dtype.element_ty), mask=mask)
    tl.store(my_ptr + rows[:, None] * s_ny + cols[None, :] * s_nx, my.to(my_ptr.dtype.element_ty), mask=mask)


def ekman_transport(taux: torch.Tensor, tauy: torch.Tensor, f: torch.Tensor, BLOCK_Y: int = 16,
                    BLOCK_X: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    Y, X = taux.shape
    mx = torch.empty((Y, X), dtype=taux.dtype, device=taux.device)
    my = torch.empty((Y, X), dtype=taux.dtype, device=taux.device)
    if Y == 0 or X == 0:
        return mx, my
    grid = (triton.cdiv(Y, BLOCK_Y), triton.cdiv(X, BLOCK_X))
    ekman_kernel[grid](taux, tauy, f, mx, my, Y, X, RHO0,
                       taux.stride(0), taux.stride(1), tauy.stride(0), tauy.stride(1), f.stride(0),
                       mx.stride(0), mx.stride(1), my.stride(0), my.stride(1),
                       BLOCK_Y=BLOCK_Y, BLOCK_X=BLOCK_X)
    return mx, my


def coriolis(ctx: kcheck.CaseContext) -> torch.Tensor:
    """f = 2 Omega sin(lat) for latitudes between 8 and 80 degrees, northern and southern rows alternating."""
    Y = ctx.dims["Y"]
    u = torch.rand(Y, generator=ctx.generator, dtype=torch.float64)
    sign = torch.where(torch.arange(Y) % 2 == 0, 1.0, -1.0).to(torch.float64)
    lat = sign * (8.0 + 72.0 * u) * math.pi / 180.0
    return (2.0 * OMEGA * torch.sin(lat)).to(torch.float32).to(ctx.device)


def reference(taux: torch.Tensor, tauy: torch.Tensor, f: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rf = RHO0 * f[:, None]
    return tauy / rf, -taux / rf


spec = kcheck.Spec(
    name="hx39_ekman_transport",
    kernel=ekman_transport,
    reference=reference,
    inputs=[kcheck.Tensor("Y", "X", name="taux"), kcheck.Tensor("Y", "X", name="tauy"),
            kcheck.Custom(coriolis, name="f", dims=("Y",))],
    dims={"Y": kcheck.Dim(nominal=90), "X": kcheck.Dim(nominal=200, large=False)},  # X tiles: grid axis 1 (<= 65535)
    configs=[{"BLOCK_Y": 16, "BLOCK_X": 64}, {"BLOCK_Y": 8, "BLOCK_X": 128}],
)

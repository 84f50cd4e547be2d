"""Wave energy flux and deep-water wavelength from a spectral wave model's output (oceanography): on a
[T, Y, X] grid (time, latitude, longitude) of significant wave height Hs (m) and energy period Te (s),

    flux       = rho * g^2 / (64 * pi) * Hs^2 * Te / 1000     (kW per metre of wave crest, rho = 1025 kg/m^3)
    wavelength = g * Te^2 / (2 * pi)                          (m)

Two outputs from one pass. The grid is walked as T*Y rows of X points, [BLOCK_R, BLOCK_X] tiles, every input and
output through its own three strides; fp32 arithmetic, outputs in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"

G = 9.80665
RHO = 1025.0
FLUX_COEF = RHO * G * G / (64.0 * math.pi) / 1000.0
WAVELENGTH_COEF = G / (2.0 * math.pi)


@triton.jit
def wave_energy_kernel(hs_ptr, te_ptr, flux_ptr, wl_ptr, R, Y, X, flux_coef, wl_coef,
                       shs_t, shs_y, shs_x, ste_t, ste_y, ste_x, sf_t, sf_y, sf_x, sw_t, sw_y, sw_x,
                       BLOCK_R: tl.constexpr, BLOCK_X: tl.constexpr):
    pid_r = tl.program_id(0).to(tl.int64)
    pid_x = tl.program_id(1).to(tl.int64)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = pid_x * BLOCK_X + tl.arange(0, BLOCK_X).to(tl.int64)
    mask = (rows < R)[:, None] & (cols < X)[None, :]
    t = (rows // Y)[:, None]
    y = (rows % Y)[:, None]
    x = cols[None, :]
    hs = tl.load(hs_ptr + t * shs_t + y * shs_y + x * shs_x, mask=mask, other=0.0).to(tl.float32)
    te = tl.load(te_ptr + t * ste_t + y * ste_y + x * ste_x, mask=mask, other=0.0).to(tl.float32)
    flux = flux_coef * hs * hs * te
    wavelength = wl_coef * te * te
    tl.store(flux_ptr + t * sf_t + y * sf_y + x * sf_x, flux.to(flux_ptr.dtype.element_ty), mask=mask)


def wave_energy_flux(hs: torch.Tensor, te: torch.Tensor, BLOCK_X: int = 64,
                     BLOCK_R: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    T, Y, X = hs.shape
    flux = torch.empty((T, Y, X), dtype=hs.dtype, device=hs.device)
    wavelength = torch.empty((T, Y, X), dtype=hs.dtype, device=hs.device)
    R = T * Y
    if R == 0 or X == 0:
        return flux, wavelength
    block_x = min(BLOCK_X, triton.next_power_of_2(X))
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(X, block_x))
    wave_energy_kernel[grid](hs, te, flux, wavelength, R, Y, X, FLUX_COEF, WAVELENGTH_COEF,
                             *hs.stride(), *te.stride(), *flux.stride(), *wavelength.stride(),
                             BLOCK_R=BLOCK_R, BLOCK_X=block_x)
    return flux, wavelength


def reference(hs: torch.Tensor, te: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return FLUX_COEF * hs * hs * te, WAVELENGTH_COEF * te * te


spec = kcheck.Spec(
    name="hx38_wave_energy_flux",
    kernel=wave_energy_flux,
    reference=reference,
    inputs=[kcheck.Tensor("T", "Y", "X", name="hs"), kcheck.Tensor("T", "Y", "X", name="te")],
    dims={"T": kcheck.Dim(nominal=4, max=24), "Y": kcheck.Dim(nominal=40), "X": kcheck.Dim(nominal=72)},
    configs=[{"BLOCK_X": 64, "BLOCK_R": 16}, {"BLOCK_X": 16, "BLOCK_R": 32}],
)

"""Calorimeter cell calibration with zero suppression (particle physics, detector readout).

Each event (a row) holds the raw ADC amplitude of every calorimeter cell (a column). A cell's energy is its
pedestal-subtracted amplitude times its calibration gain (GeV per ADC count); cells below n_sigma times their
noise are suppressed to zero:

    E[e, c] = (adc[e, c] - pedestal[c]) * gain[c]     if > n_sigma * noise[c],  else 0

pedestal, gain and noise are per-cell constants from the calibration database. Square BLOCK x BLOCK tiles of
(events, cells); n_sigma is a mode (0: suppress only negative energies).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def calib_kernel(adc_ptr, ped_ptr, gain_ptr, noise_ptr, out_ptr, E, C, n_sigma,
                 s_ae, s_ac, s_p, s_g, s_n, s_oe, s_oc, BLOCK: tl.constexpr):
    ev = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    cells = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    c_mask = cells < C
    mask = (ev < E)[:, None] & c_mask[None, :]
    adc = tl.load(adc_ptr + ev[:, None] * s_ae + cells[None, :] * s_ac, mask=mask, other=0.0).to(tl.float32)
    ped = tl.load(ped_ptr + cells * s_p, mask=c_mask, other=0.0).to(tl.float32)
    gain = tl.load(gain_ptr + cells * s_g, mask=c_mask, other=0.0).to(tl.float32)
    noise = tl.load(noise_ptr + cells * s_n, mask=c_mask, other=0.0).to(tl.float32)
    energy = (adc - ped[None, :]) * gain[:, None]
    keep = energy > (n_sigma * noise)[None, :]
    out = tl.where(keep, energy, 0.0)
    tl.store(out_ptr + ev[:, None] * s_oe + cells[None, :] * s_oc, out.to(out_ptr.dtype.element_ty), mask=mask)


def calibrate_cells(adc: torch.Tensor, pedestal: torch.Tensor, gain: torch.Tensor, noise: torch.Tensor,
                    n_sigma: float = 3.0, BLOCK: int = 32) -> torch.Tensor:
    E, C = adc.shape
    out = torch.empty((E, C), dtype=adc.dtype, device=adc.device)
    if E == 0 or C == 0:
        return out
    grid = (triton.cdiv(E, BLOCK), triton.cdiv(C, BLOCK))
    calib_kernel[grid](adc, pedestal, gain, noise, out, E, C, n_sigma, adc.stride(0), adc.stride(1),
                       pedestal.stride(0), gain.stride(0), noise.stride(0), out.stride(0), out.stride(1),
                       BLOCK=BLOCK)
    return out


def reference(adc: torch.Tensor, pedestal: torch.Tensor, gain: torch.Tensor, noise: torch.Tensor,
              n_sigma: float = 3.0) -> torch.Tensor:
    energy = (adc - pedestal) * gain
    return torch.where(energy > n_sigma * noise, energy, 0.0)


spec = kcheck.Spec(
    name="hx39_calorimeter_cell_calibration",
    kernel=calibrate_cells,
    reference=reference,
    inputs=[kcheck.Tensor("E", "C", name="adc"), kcheck.Tensor("C", name="pedestal"),
            kcheck.Tensor("C", name="gain"), kcheck.Tensor("C", name="noise")],
    dims={"E": kcheck.Dim(nominal=96), "C": kcheck.Dim(nominal=320, large=False)},  # cell tiles: grid axis 1
    params={"n_sigma": [3.0, 0.0]},
    configs=[{"BLOCK": 32}, {"BLOCK": 64}],
)

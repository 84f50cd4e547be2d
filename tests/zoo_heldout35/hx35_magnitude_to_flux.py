"""Photometric calibration: apparent magnitudes to fluxes, per exposure zero point.

flux[m, n] = 10^(-0.4 * (mag[m, n] - zp[m])) for source n of exposure m (flux in units of the zero point's
reference). Computed as exp2(-0.4 * log2(10) * (mag - zp)) in fp32. Tiled over (exposure block, source block);
row offsets are int64 because a survey catalogue passes 2**31 entries.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

NEG_0P4_LOG2_10 = -0.4 * 3.321928094887362


@triton.jit
def mag_to_flux_kernel(mag_ptr, zp_ptr, out_ptr, M, N, s_mm, s_mn, s_z, s_om, s_on,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    zp = tl.load(zp_ptr + rows * s_z, mask=row_mask, other=0.0).to(tl.float32)
    mag = tl.load(mag_ptr + rows[:, None] * s_mm + cols[None, :] * s_mn, mask=mask, other=0.0).to(tl.float32)
    flux = tl.exp2(NEG_0P4_LOG2_10 * (mag - zp[:, None]))
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, flux.to(out_ptr.dtype.element_ty), mask=mask)


def mag_to_flux(mag, zp, BLOCK_M=16, BLOCK_N=128):
    M, N = mag.shape
    out = torch.empty_like(mag)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    mag_to_flux_kernel[grid](mag, zp, out, M, N, mag.stride(0), mag.stride(1), zp.stride(0), out.stride(0),
                             out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(mag, zp):
    return torch.pow(10.0, -0.4 * (mag - zp[:, None]))


spec = kcheck.Spec(
    name="hx35_magnitude_to_flux",
    kernel=mag_to_flux,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="mag"), kcheck.Tensor("M", name="zero_point")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=640)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 32}],
)

"""Plane-of-array irradiance of a photovoltaic fleet over a day (isotropic-sky transposition model):

    cos(aoi) = cos(zenith) cos(tilt) + sin(zenith) sin(tilt) cos(sun_azimuth - panel_azimuth),
    poa[m, n] = dni[n] * max(cos(aoi), 0) + dhi[n] * (1 + cos(tilt)) / 2,

for panel m (tilt, azimuth) at time step n (solar zenith, solar azimuth, direct-normal and diffuse-horizontal
irradiance). Angles in radians. Tiles of BLOCK_M panels by BLOCK_N time steps; the trigonometry of each panel and
each time step is taken once per tile row / column, in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def poa_kernel(tilt_ptr, paz_ptr, zen_ptr, saz_ptr, dni_ptr, dhi_ptr, out_ptr, M, N,
               s_tilt, s_paz, s_zen, s_saz, s_dni, s_dhi, s_om, s_on, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rmask = rows < M
    cmask = cols < N
    tilt = tl.load(tilt_ptr + rows * s_tilt, mask=rmask, other=0.0)
    paz = tl.load(paz_ptr + rows * s_paz, mask=rmask, other=0.0).to(tl.float32)
    zen = tl.load(zen_ptr + cols * s_zen, mask=cmask, other=0.0).to(tl.float32)
    saz = tl.load(saz_ptr + cols * s_saz, mask=cmask, other=0.0).to(tl.float32)
    dni = tl.load(dni_ptr + cols * s_dni, mask=cmask, other=0.0).to(tl.float32)
    dhi = tl.load(dhi_ptr + cols * s_dhi, mask=cmask, other=0.0).to(tl.float32)
    cos_t = tl.cos(tilt)
    cos_aoi = tl.cos(zen)[None, :] * cos_t[:, None] \
        + (tl.sin(zen)[None, :] * tl.sin(tilt)[:, None]) * tl.cos(saz[None, :] - paz[:, None])
    beam = tl.where(cos_aoi > 0.0, cos_aoi, 0.0)
    poa = dni[None, :] * beam + dhi[None, :] * (0.5 * (1.0 + cos_t))[:, None]
    mask = rmask[:, None] & cmask[None, :]
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, poa.to(out_ptr.dtype.element_ty), mask=mask)


def plane_of_array(tilt, panel_azimuth, zenith, sun_azimuth, dni, dhi, BLOCK_M: int = 16,
                   BLOCK_N: int = 64) -> torch.Tensor:
    M, N = tilt.shape[0], zenith.shape[0]
    out = torch.empty((M, N), dtype=dni.dtype, device=dni.device)
    if M == 0 or N == 0:
        return out
    poa_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](
        tilt, panel_azimuth, zenith, sun_azimuth, dni, dhi, out, M, N, tilt.stride(0), panel_azimuth.stride(0),
        zenith.stride(0), sun_azimuth.stride(0), dni.stride(0), dhi.stride(0), out.stride(0), out.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(tilt, panel_azimuth, zenith, sun_azimuth, dni, dhi):
    relative_azimuth = sun_azimuth[None, :] - panel_azimuth[:, None]
    cos_aoi = torch.cos(zenith)[None, :] * torch.cos(tilt)[:, None] \
        + (torch.sin(zenith)[None, :] * torch.sin(tilt)[:, None]) * torch.cos(relative_azimuth)
    beam = torch.where(cos_aoi > 0, cos_aoi, 0.0)
    return dni[None, :] * beam + dhi[None, :] * (0.5 * (1.0 + torch.cos(tilt)))[:, None]


spec = kcheck.Spec(
    name="pv_plane_of_array_irradiance",
    kernel=plane_of_array,
    reference=reference,
    inputs=[kcheck.Tensor("M", name="tilt"), kcheck.Tensor("M", name="panel_azimuth"),
            kcheck.Tensor("N", name="zenith"), kcheck.Tensor("N", name="sun_azimuth"),
            kcheck.Tensor("N", name="dni"), kcheck.Tensor("N", name="dhi")],
    dims={"M": kcheck.Dim(nominal=40, real=()), "N": kcheck.Dim(nominal=288, real=(), large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)

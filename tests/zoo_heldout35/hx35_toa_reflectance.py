"""Top-of-atmosphere reflectance from at-sensor radiance (Landsat-style calibration).

rho[b, n] = pi * L[b, n] * d^2 / (ESUN[b] * cos(theta_s)) for each band b and pixel n, with d the Earth-Sun
distance in astronomical units and theta_s the solar zenith angle. Radiance is stored band-sequential (one row per
band); a 2-D grid of (band, pixel block) programs, fp32 arithmetic, row strides honoured.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

EARTH_SUN_AU = 1.0145
SUN_ZENITH_DEG = 32.5


@triton.jit
def toa_reflectance_kernel(rad_ptr, esun_ptr, out_ptr, N, scale, s_rb, s_rn, s_e, s_ob, s_on,
                           BLOCK: tl.constexpr):
    band = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    esun = tl.load(esun_ptr + band * s_e).to(tl.float32)
    rad = tl.load(rad_ptr + band * s_rb + cols * s_rn).to(tl.float32)
    rho = rad * (scale / esun)
    tl.store(out_ptr + band * s_ob + cols * s_on, rho.to(out_ptr.dtype.element_ty), mask=mask)


def toa_reflectance(radiance, esun, BLOCK=256):
    B, N = radiance.shape
    out = torch.empty_like(radiance)
    if B == 0 or N == 0:
        return out
    scale = math.pi * EARTH_SUN_AU ** 2 / math.cos(math.radians(SUN_ZENITH_DEG))
    toa_reflectance_kernel[(B, triton.cdiv(N, BLOCK))](
        radiance, esun, out, N, scale, radiance.stride(0), radiance.stride(1), esun.stride(0),
        out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(radiance, esun):
    scale = math.pi * EARTH_SUN_AU ** 2 / math.cos(math.radians(SUN_ZENITH_DEG))
    return radiance * scale / esun[:, None]


def solar_irradiance(ctx):
    # exo-atmospheric solar irradiance per band, W / (m^2 um): 100 .. 2000
    return (100.0 + 1900.0 * ctx.rand(ctx.dims["B"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_toa_reflectance",
    kernel=toa_reflectance,
    reference=reference,
    inputs=[kcheck.Tensor("B", "N", name="radiance"), kcheck.Custom(solar_irradiance, name="esun", dims=("B",))],
    dims={"B": kcheck.Dim(nominal=7, max=64), "N": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
    properties=[kcheck.props.linear(0)],
)

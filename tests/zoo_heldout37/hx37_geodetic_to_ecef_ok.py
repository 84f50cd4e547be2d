"""Geodetic (latitude, longitude, ellipsoidal height) to Earth-centred Earth-fixed coordinates on the WGS84
ellipsoid (geodesy / GNSS): with a = 6378.137 km the semi-major axis, e^2 = 6.69437999014e-3 the first
eccentricity squared and N = a / sqrt(1 - e^2 sin^2(lat)) the prime-vertical radius of curvature,

    X = (N + h) cos(lat) cos(lon)
    Y = (N + h) cos(lat) sin(lon)
    Z = (N (1 - e^2) + h) sin(lat)

Angles in radians, h and the outputs in kilometres. Elementwise over three 1-D tensors with three outputs, fp32
arithmetic, any strides, int64 offsets. A correct control.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

A_KM: tl.constexpr = 6378.137
E2: tl.constexpr = 6.69437999014e-3


@triton.jit
def ecef_kernel(lat_ptr, lon_ptr, h_ptr, x_ptr, y_ptr, z_ptr, n, s_lat, s_lon, s_h, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    lat = tl.load(lat_ptr + offs * s_lat, mask=mask, other=0.0).to(tl.float32)
    lon = tl.load(lon_ptr + offs * s_lon, mask=mask, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + offs * s_h, mask=mask, other=0.0).to(tl.float32)
    sin_lat = tl.sin(lat)
    cos_lat = tl.cos(lat)
    n_rad = A_KM / tl.sqrt(1.0 - E2 * sin_lat * sin_lat)
    r = (n_rad + h) * cos_lat
    tl.store(x_ptr + offs, (r * tl.cos(lon)).to(x_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + offs, (r * tl.sin(lon)).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(z_ptr + offs, ((n_rad * (1.0 - E2) + h) * sin_lat).to(z_ptr.dtype.element_ty), mask=mask)


def geodetic_to_ecef(lat: torch.Tensor, lon: torch.Tensor, h: torch.Tensor,
                     BLOCK: int = 512) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    n = lat.shape[0]
    x, y, z = (torch.empty((n,), dtype=lat.dtype, device=lat.device) for _ in range(3))
    if n:
        ecef_kernel[(triton.cdiv(n, BLOCK),)](lat, lon, h, x, y, z, n, lat.stride(0), lon.stride(0), h.stride(0),
                                             BLOCK=BLOCK)
    return x, y, z


def reference(lat: torch.Tensor, lon: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, ...]:
    a, e2 = 6378.137, 6.69437999014e-3
    n_rad = a / torch.sqrt(1.0 - e2 * torch.sin(lat) ** 2)
    r = (n_rad + h) * torch.cos(lat)
    return r * torch.cos(lon), r * torch.sin(lon), (n_rad * (1.0 - e2) + h) * torch.sin(lat)


spec = kcheck.Spec(
    name="hx37_geodetic_to_ecef_ok",
    kernel=geodetic_to_ecef,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="lat"), kcheck.Tensor("N", name="lon"), kcheck.Tensor("N", name="h_km")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)

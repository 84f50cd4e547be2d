"""Geodesy: local East-North-Up coordinates of points given in Earth-centred Earth-fixed (ECEF) coordinates, around
a reference station at ECEF position ref with geodetic latitude lat and longitude lon:

    d = p - ref
    e = -sin(lon) dx + cos(lon) dy
    n = -sin(lat) cos(lon) dx - sin(lat) sin(lon) dy + cos(lat) dz
    u =  cos(lat) cos(lon) dx + cos(lat) sin(lon) dy + sin(lat) dz

The offset from the station is formed first (points near the station are close to it in ECEF, far from the origin).
One lane per point, [N, 3] inputs read through their strides, fp32 arithmetic."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def enu_kernel(p_ptr, ref_ptr, out_ptr, N, s_pn, s_pc, s_ref, s_on, s_oc, slat, clat, slon, clon,
               BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < N
    px = tl.load(p_ptr + offs * s_pn, mask=mask, other=0.0).to(tl.float32)
    py = tl.load(p_ptr + offs * s_pn + s_pc, mask=mask, other=0.0).to(tl.float32)
    pz = tl.load(p_ptr + offs * s_pn + 2 * s_pc, mask=mask, other=0.0).to(tl.float32)
    rx = tl.load(ref_ptr).to(tl.float32)
    ry = tl.load(ref_ptr + s_ref).to(tl.float32)
    rz = tl.load(ref_ptr + 2 * s_ref).to(tl.float32)
    dx = px - rx
    dy = py - ry
    dz = pz - rz
    e = -slon * px + clon * py + (slon * rx - clon * ry)
    n = -slat * clon * dx - slat * slon * dy + clat * dz
    u = clat * clon * dx + clat * slon * dy + slat * dz
    o = out_ptr + offs * s_on
    tl.store(o, e.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o + s_oc, n.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o + 2 * s_oc, u.to(out_ptr.dtype.element_ty), mask=mask)


def ecef_to_enu(points: torch.Tensor, ref: torch.Tensor, lat_deg: float = 47.37, lon_deg: float = 8.54,
                BLOCK: int = 256) -> torch.Tensor:
    N = points.shape[0]
    out = torch.empty((N, 3), dtype=points.dtype, device=points.device)
    if N == 0:
        return out
    lat, lon = math.radians(lat_deg), math.radians(lon_deg)
    enu_kernel[(triton.cdiv(N, BLOCK),)](points, ref, out, N, points.stride(0), points.stride(1), ref.stride(0),
                                         out.stride(0), out.stride(1), math.sin(lat), math.cos(lat), math.sin(lon),
                                         math.cos(lon), BLOCK=BLOCK)
    return out


def reference(points: torch.Tensor, ref: torch.Tensor, lat_deg: float = 47.37, lon_deg: float = 8.54) -> torch.Tensor:
    lat, lon = math.radians(lat_deg), math.radians(lon_deg)
    sl, cl, so, co = math.sin(lat), math.cos(lat), math.sin(lon), math.cos(lon)
    rot = torch.tensor([[-so, co, 0.0], [-sl * co, -sl * so, cl], [cl * co, cl * so, sl]], dtype=points.dtype)
    return (points - ref) @ rot.T


spec = kcheck.Spec(
    name="hx30_ecef_to_enu",
    kernel=ecef_to_enu,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="points"), kcheck.Tensor(3, name="station")],
    dims={"N": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
    params={"lat_deg": [47.37, -33.87], "lon_deg": [8.54, 151.21]},
)

"""Chord (straight-line) length of one integration step on the unit sphere (dead reckoning / GPS track
smoothing: how far a point moving at angular velocity (vlat, vlon) travels in dt).

lat, lon [N] in radians, vlat, vlon [N] in radians per unit time, dt a mode: the step goes from (lat, lon) to
(lat + vlat dt, lon + vlon dt); out[i] = 2 sqrt(a) with the haversine
a = sin^2(dlat/2) + cos(lat1) cos(lat2) sin^2(dlon/2) (the chord of the central angle theta is 2 sin(theta/2)),
in fp32 (a clamped at 0). One program per BLOCK points.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def chord_step_kernel(lat_ptr, lon_ptr, vlat_ptr, vlon_ptr, out_ptr, n, dt, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    lat1 = tl.load(lat_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    lon1 = tl.load(lon_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dlat = tl.load(vlat_ptr + offs, mask=mask, other=0.0).to(tl.float32) * dt
    dlon = tl.load(vlon_ptr + offs, mask=mask, other=0.0).to(tl.float32) * dt
    lat2 = lat1 + dlat
    c = tl.sin(lat1) * tl.sin(lat2) + tl.cos(lat1) * tl.cos(lat2) * tl.cos(dlon)
    d = tl.sqrt(tl.maximum(2.0 - 2.0 * c, 0.0))
    tl.store(out_ptr + offs, d.to(out_ptr.dtype.element_ty), mask=mask)


def chord_step(lat, lon, vlat, vlon, dt=1e-3, BLOCK=512):
    n = lat.numel()
    lat, lon, vlat, vlon = (t.contiguous() for t in (lat, lon, vlat, vlon))
    out = torch.empty_like(lat)
    if n:
        chord_step_kernel[(triton.cdiv(n, BLOCK),)](lat, lon, vlat, vlon, out, n, dt, BLOCK=BLOCK)
    return out


def reference(lat, lon, vlat, vlon, dt=1e-3):
    dlat, dlon = vlat * dt, vlon * dt
    a = torch.sin(dlat / 2) ** 2 + torch.cos(lat) * torch.cos(lat + dlat) * torch.sin(dlon / 2) ** 2
    return 2.0 * torch.sqrt(a.clamp_min(0.0))


spec = kcheck.Spec(
    name="hx17_sphere_chord_distance",
    kernel=chord_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="lat"), kcheck.Tensor("N", name="lon"), kcheck.Tensor("N", name="vlat"),
            kcheck.Tensor("N", name="vlon")],
    dims={"N": kcheck.Dim(nominal=4096)},
    params={"dt": [1e-3, 0.1]},
    patterns=["randn", "zeros", "ones", "eye", "arange", "constant", "large_mean"],
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)

"""Sagitta of a surface arc on a spherical body (geodesy / surveying): the height in metres by which an arc of
length s kilometres on a sphere of radius R kilometres rises above its chord at mid-span,

    h = 1000 R (1 - cos(s / (2 R))) = 2000 R sin^2(s / (4 R))

(the Earth's mean radius 6371 km, the Moon's 1737.4 km, as a mode). The half-angle form keeps every digit for the
short arcs of surveying, where s / 2R is 1e-4 and its cosine rounds to 1 in fp32. Elementwise over a 1-D tensor of
arc lengths, any stride, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def sagitta_kernel(s_ptr, out_ptr, n, radius_km, s_s, s_o, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    s = tl.load(s_ptr + offs * s_s, mask=mask, other=0.0).to(tl.float32)
    half = s / (2.0 * radius_km)
    q = tl.sin(0.5 * half)
    h = 1000.0 * radius_km * (1.0 - tl.cos(half))
    tl.store(out_ptr + offs * s_o, h.to(out_ptr.dtype.element_ty), mask=mask)


def earth_arc_sagitta(s: torch.Tensor, radius_km: float = 6371.0, BLOCK: int = 1024) -> torch.Tensor:
    n = s.shape[0]
    out = torch.empty((n,), dtype=s.dtype, device=s.device)
    if n:
        sagitta_kernel[(triton.cdiv(n, BLOCK),)](s, out, n, radius_km, s.stride(0), out.stride(0), BLOCK=BLOCK)
    return out


def reference(s: torch.Tensor, radius_km: float) -> torch.Tensor:
    return 2000.0 * radius_km * torch.sin(s / (4.0 * radius_km)) ** 2


spec = kcheck.Spec(
    name="hx37_earth_arc_sagitta",
    kernel=earth_arc_sagitta,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="arc_km")],
    dims={"N": kcheck.Dim(nominal=5000)},
    params={"radius_km": [6371.0, 1737.4]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

"""Sag of an even asphere (optical surface height) at aperture points (x, y), in mm:

    z(r) = c r^2 / (1 + sqrt(1 - (1 + k) c^2 r^2)) + A4 r^4 + A6 r^6,     r^2 = x^2 + y^2

with curvature c = 1 / R and conic constant k as modes (k = 0: sphere, -1 < k < 0: prolate ellipsoid). Points past
the surface's aperture limit ((1 + k) c^2 r^2 > 1) give NaN, as the formula does. One program per BLOCK points,
fp32 arithmetic, the points' strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"

A4 = 1.0e-5  # mm^-3
A6 = -2.0e-8  # mm^-5


@triton.jit
def asphere_sag_kernel(x_ptr, y_ptr, z_ptr, N, c, k, a4, a6, s_x, s_y, s_z, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ok = offs < N
    x = tl.load(x_ptr + offs * s_x, mask=ok, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs * s_y, mask=ok, other=0.0).to(tl.float32)
    r2 = x * x + y * y
    root = tl.sqrt(1.0 - (1.0 + k) * c * c * r2)
    conic = (1.0 - root) / ((1.0 + k) * c)
    z = conic + r2 * r2 * (a4 + a6 * r2)
    tl.store(z_ptr + offs * s_z, z.to(z_ptr.dtype.element_ty), mask=ok)


def asphere_sag(x: torch.Tensor, y: torch.Tensor, curvature: float = 0.02, conic: float = 0.0,
                BLOCK: int = 1024) -> torch.Tensor:
    N = x.shape[0]
    z = torch.empty((N,), dtype=x.dtype, device=x.device)
    if N == 0:
        return z
    asphere_sag_kernel[(triton.cdiv(N, BLOCK),)](x, y, z, N, curvature, conic, A4, A6,
                                                 x.stride(0), y.stride(0), z.stride(0), BLOCK=BLOCK)
    return z


def reference(x: torch.Tensor, y: torch.Tensor, curvature: float = 0.02, conic: float = 0.0) -> torch.Tensor:
    r2 = x * x + y * y
    c, k = curvature, conic
    return c * r2 / (1 + torch.sqrt(1 - (1 + k) * c * c * r2)) + A4 * r2 ** 2 + A6 * r2 ** 3


spec = kcheck.Spec(
    name="hx26_asphere_sag",
    kernel=asphere_sag,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Tensor("N", name="y")],
    dims={"N": kcheck.Dim(nominal=5000)},
    params={"curvature": [0.02, -0.004], "conic": [0.0, -0.6]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

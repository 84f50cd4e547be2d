"""Pixel to viewing ray (photogrammetry): back-project pixel coordinates through a pinhole camera's intrinsics.

For a pixel (u, v), focal lengths (fx, fy) and principal point (cx, cy) in pixels, the ray in the camera frame is
(x, y, 1) with x = (u - cx) / fx, y = (v - cy) / fy; the kernel returns its three unit-vector components
(x, y, 1) / sqrt(x^2 + y^2 + 1) as three outputs. Computed in fp32, stored in the input dtype; offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

FX, FY, CX, CY = 1450.0, 1432.5, 960.0, 540.0


@triton.jit
def pixel_to_ray_kernel(u_ptr, v_ptr, rx_ptr, ry_ptr, rz_ptr, n, inv_fx, inv_fy, cx, cy, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs).to(tl.float32)
    x = (u - cx) * inv_fx
    y = (v - cy) * inv_fy
    inv_norm = 1.0 / tl.sqrt(x * x + y * y + 1.0)
    out_ty = rx_ptr.dtype.element_ty
    tl.store(rx_ptr + offs, (x * inv_norm).to(out_ty), mask=mask)
    tl.store(ry_ptr + offs, (y * inv_norm).to(out_ty), mask=mask)
    tl.store(rz_ptr + offs, inv_norm.to(out_ty), mask=mask)


def pixel_to_ray(u: torch.Tensor, v: torch.Tensor, fx: float, fy: float, cx: float, cy: float,
                 BLOCK: int = 1024) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    u, v = u.contiguous(), v.contiguous()
    n = u.numel()
    rx, ry, rz = (torch.empty_like(u) for _ in range(3))
    if n:
        pixel_to_ray_kernel[(triton.cdiv(n, BLOCK),)](u, v, rx, ry, rz, n, 1.0 / fx, 1.0 / fy, cx, cy, BLOCK=BLOCK)
    return rx, ry, rz


def reference(u: torch.Tensor, v: torch.Tensor, fx: float, fy: float, cx: float, cy: float):
    x = (u - cx) / fx
    y = (v - cy) / fy
    norm = torch.sqrt(x * x + y * y + 1.0)
    return x / norm, y / norm, 1.0 / norm


spec = kcheck.Spec(
    name="hx40_pixel_to_ray",
    kernel=pixel_to_ray,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="u"), kcheck.Tensor("N", name="v"), kcheck.Scalar(FX, name="fx"),
            kcheck.Scalar(FY, name="fy"), kcheck.Scalar(CX, name="cx"), kcheck.Scalar(CY, name="cy")],
    dims={"N": kcheck.Dim(nominal=6000)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

"""Rotate vectors by axis-angle rotation vectors (Rodrigues' formula), as a pose graph or an IMU integrator does:

    theta = |w|,  k = w / theta,
    v' = v cos(theta) + (k x v) sin(theta) + k (k . v) (1 - cos(theta)),

with 1 - cos(theta) taken as 2 sin^2(theta / 2) (no cancellation for small angles) and v' = v where w = 0. v and w
are [P, 3]; each component is read as its own [BLOCK_P] vector so the cross product is plain arithmetic. fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def rodrigues_kernel(v_ptr, w_ptr, out_ptr, P, s_vp, s_vc, s_wp, s_wc, s_op, s_oc, BLOCK_P: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    mask = p < P
    vx = tl.load(v_ptr + p * s_vp, mask=mask, other=0.0).to(tl.float32)
    vy = tl.load(v_ptr + p * s_vp + s_vc, mask=mask, other=0.0).to(tl.float32)
    vz = tl.load(v_ptr + p * s_vp + 2 * s_vc, mask=mask, other=0.0).to(tl.float32)
    wx = tl.load(w_ptr + p * s_wp, mask=mask, other=0.0).to(tl.float32)
    wy = tl.load(w_ptr + p * s_wp + s_wc, mask=mask, other=0.0).to(tl.float32)
    wz = tl.load(w_ptr + p * s_wp + 2 * s_wc, mask=mask, other=0.0).to(tl.float32)
    theta = tl.sqrt(wx * wx + wy * wy + wz * wz)
    inv = tl.where(theta > 0.0, 1.0 / theta, 0.0)
    kx, ky, kz = wx * inv, wy * inv, wz * inv
    c = tl.cos(theta)
    s = tl.sin(theta)
    h = tl.sin(0.5 * theta)
    versine = 2.0 * h * h
    kdv = (kx * vx + ky * vy + kz * vz) * versine
    ox = vx * c + (ky * vz - kz * vy) * s + kx * kdv
    oy = vy * c + (kz * vx - kx * vz) * s + ky * kdv
    oz = vz * c + (kx * vy - ky * vx) * s + kz * kdv
    dt = out_ptr.dtype.element_ty
    tl.store(out_ptr + p * s_op, ox.to(dt), mask=mask)
    tl.store(out_ptr + p * s_op + s_oc, oy.to(dt), mask=mask)
    tl.store(out_ptr + p * s_op + 2 * s_oc, oz.to(dt), mask=mask)


def rodrigues_rotate(v: torch.Tensor, w: torch.Tensor, BLOCK_P: int = 512) -> torch.Tensor:
    P = v.shape[0]
    out = torch.empty((P, 3), dtype=v.dtype, device=v.device)
    if P:
        rodrigues_kernel[(triton.cdiv(P, BLOCK_P),)](v, w, out, P, v.stride(0), v.stride(1), w.stride(0), w.stride(1),
                                                     out.stride(0), out.stride(1), BLOCK_P=BLOCK_P)
    return out


def reference(v: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    theta = w.norm(dim=-1, keepdim=True)
    k = torch.where(theta > 0, w / torch.where(theta > 0, theta, 1.0), 0.0)
    kdv = (k * v).sum(-1, keepdim=True) * 2.0 * torch.sin(0.5 * theta) ** 2
    return v * torch.cos(theta) + torch.cross(k, v, dim=-1) * torch.sin(theta) + k * kdv


spec = kcheck.Spec(
    name="rodrigues_rotation",
    kernel=rodrigues_rotate,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="v"), kcheck.Tensor("P", 3, name="rotvec")],
    dims={"P": kcheck.Dim(nominal=4000, real=())},
    configs=[{"BLOCK_P": 512}, {"BLOCK_P": 128}],
)

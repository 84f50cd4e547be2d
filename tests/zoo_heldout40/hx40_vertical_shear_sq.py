"""Squared vertical shear of horizontal currents (oceanography), from velocity profiles on levels dz apart.

u and v are [Z, P]: Z depth levels (rows) of P profiles (columns). Between consecutive levels k and k + 1 the
squared shear is S2[k, p] = ((u[k+1, p] - u[k, p]) / dz)^2 + ((v[k+1, p] - v[k, p]) / dz)^2, so the output has
Z - 1 rows. 2-D tiles of BLOCK_Z levels by BLOCK_P profiles, fp32 arithmetic, any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def shear_sq_kernel(u_ptr, v_ptr, s_ptr, Z, P, inv_dz, s_uz, s_up, s_vz, s_vp, s_sz, s_sp,
                    BLOCK_Z: tl.constexpr, BLOCK_P: tl.constexpr):
    pid_z = tl.program_id(0).to(tl.int64)
    pid_p = tl.program_id(1).to(tl.int64)
    k = pid_z * BLOCK_Z + tl.arange(0, BLOCK_Z).to(tl.int64)
    p = pid_p * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    mask = (k < Z)[:, None] & (p < P)[None, :]
    u0 = tl.load(u_ptr + k[:, None] * s_uz + p[None, :] * s_up, mask=mask, other=0.0).to(tl.float32)
    u1 = tl.load(u_ptr + (k + 1)[:, None] * s_uz + p[None, :] * s_up, mask=mask, other=0.0).to(tl.float32)
    v0 = tl.load(v_ptr + k[:, None] * s_vz + p[None, :] * s_vp, mask=mask, other=0.0).to(tl.float32)
    v1 = tl.load(v_ptr + (k + 1)[:, None] * s_vz + p[None, :] * s_vp, mask=mask, other=0.0).to(tl.float32)
    du = (u1 - u0) * inv_dz
    dv = (v1 - v0) * inv_dz
    tl.store(s_ptr + k[:, None] * s_sz + p[None, :] * s_sp, (du * du + dv * dv).to(s_ptr.dtype.element_ty),
             mask=mask)


def vertical_shear_sq(u: torch.Tensor, v: torch.Tensor, dz: float = 10.0, BLOCK_Z: int = 32,
                      BLOCK_P: int = 64) -> torch.Tensor:
    Z, P = u.shape
    s2 = torch.empty((max(Z - 1, 0), P), dtype=u.dtype, device=u.device)
    if Z < 2 or P == 0:
        return s2
    grid = (triton.cdiv(Z - 1, BLOCK_Z), triton.cdiv(P, BLOCK_P))
    shear_sq_kernel[grid](u, v, s2, Z, P, 1.0 / dz, u.stride(0), u.stride(1), v.stride(0), v.stride(1),
                          s2.stride(0), s2.stride(1), BLOCK_Z=BLOCK_Z, BLOCK_P=BLOCK_P)
    return s2


def reference(u: torch.Tensor, v: torch.Tensor, dz: float = 10.0) -> torch.Tensor:
    du = torch.diff(u, dim=0) / dz
    dv = torch.diff(v, dim=0) / dz
    return du * du + dv * dv


spec = kcheck.Spec(
    name="hx40_vertical_shear_sq",
    kernel=vertical_shear_sq,
    reference=reference,
    inputs=[kcheck.Tensor("Z", "P", name="u"), kcheck.Tensor("Z", "P", name="v")],
    dims={"Z": kcheck.Dim(nominal=100, min=2), "P": kcheck.Dim(nominal=160)},
    params={"dz": [10.0, 2.5]},
    configs=[{"BLOCK_Z": 32, "BLOCK_P": 64}, {"BLOCK_Z": 16, "BLOCK_P": 128}],
)

"""Lorentz force on charged particles: F = q * (E + v x B), one row of three components per particle.

Each program takes BLOCK_P particles; the velocity, electric field and magnetic field are [P, 3] arrays read
component by component through their strides (any layout), the charge a [P] vector. Computed in fp32, stored in
the input dtype. Particle offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def lorentz_force_kernel(v_ptr, e_ptr, b_ptr, q_ptr, f_ptr, P,
                         s_vp, s_vc, s_ep, s_ec, s_bp, s_bc, s_q, s_fp, s_fc,
                         BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    mask = p < P
    vx = tl.load(v_ptr + p * s_vp, mask=mask, other=0.0).to(tl.float32)
    vy = tl.load(v_ptr + p * s_vp + s_vc, mask=mask, other=0.0).to(tl.float32)
    vz = tl.load(v_ptr + p * s_vp + 2 * s_vc, mask=mask, other=0.0).to(tl.float32)
    ex = tl.load(e_ptr + p * s_ep, mask=mask, other=0.0).to(tl.float32)
    ey = tl.load(e_ptr + p * s_ep + s_ec, mask=mask, other=0.0).to(tl.float32)
    ez = tl.load(e_ptr + p * s_ep + 2 * s_ec, mask=mask, other=0.0).to(tl.float32)
    bx = tl.load(b_ptr + p * s_bp, mask=mask, other=0.0).to(tl.float32)
    by = tl.load(b_ptr + p * s_bp + s_bc, mask=mask, other=0.0).to(tl.float32)
    bz = tl.load(b_ptr + p * s_bp + 2 * s_bc).to(tl.float32)
    q = tl.load(q_ptr + p * s_q, mask=mask, other=0.0).to(tl.float32)
    fx = q * (ex + (vy * bz - vz * by))
    fy = q * (ey + (vz * bx - vx * bz))
    fz = q * (ez + (vx * by - vy * bx))
    out_ty = f_ptr.dtype.element_ty
    tl.store(f_ptr + p * s_fp, fx.to(out_ty), mask=mask)
    tl.store(f_ptr + p * s_fp + s_fc, fy.to(out_ty), mask=mask)
    tl.store(f_ptr + p * s_fp + 2 * s_fc, fz.to(out_ty), mask=mask)


def lorentz_force(v: torch.Tensor, e: torch.Tensor, b: torch.Tensor, q: torch.Tensor,
                  BLOCK_P: int = 256) -> torch.Tensor:
    P = v.shape[0]
    f = torch.empty((P, 3), dtype=v.dtype, device=v.device)
    if P == 0:
        return f
    lorentz_force_kernel[(triton.cdiv(P, BLOCK_P),)](
        v, e, b, q, f, P, v.stride(0), v.stride(1), e.stride(0), e.stride(1), b.stride(0), b.stride(1),
        q.stride(0), f.stride(0), f.stride(1), BLOCK_P=BLOCK_P)
    return f


def reference(v: torch.Tensor, e: torch.Tensor, b: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    return q[:, None] * (e + torch.linalg.cross(v, b, dim=-1))


spec = kcheck.Spec(
    name="lorentz_force",
    kernel=lorentz_force,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="velocity"), kcheck.Tensor("P", 3, name="e_field"),
            kcheck.Tensor("P", 3, name="b_field"), kcheck.Tensor("P", name="charge")],
    dims={"P": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK_P": 256}, {"BLOCK_P": 64}],
)

"""Angular momentum of point masses about the origin: L = m * (r x v) for each particle, positions and velocities
as [N, 3] rows read through their strides, masses [N]. One lane per particle, fp32 arithmetic, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def angular_momentum_kernel(r_ptr, v_ptr, m_ptr, out_ptr, N, s_rn, s_rc, s_vn, s_vc, s_m, s_on, s_oc,
                            BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < N
    rx = tl.load(r_ptr + offs * s_rn, mask=mask, other=0.0).to(tl.float32)
    ry = tl.load(r_ptr + offs * s_rn + s_rc, mask=mask, other=0.0).to(tl.float32)
    rz = tl.load(r_ptr + offs * s_rn + 2 * s_rc, mask=mask, other=0.0).to(tl.float32)
    vx = tl.load(v_ptr + offs * s_vn, mask=mask, other=0.0).to(tl.float32)
    vy = tl.load(v_ptr + offs * s_vn + s_vc, mask=mask, other=0.0).to(tl.float32)
    vz = tl.load(v_ptr + offs * s_vn + 2 * s_vc, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs * s_m, mask=mask, other=0.0).to(tl.float32)
    lx = m * (ry * vz - rz * vy)
    ly = m * (rz * vx - rx * vz)
    lz = m * (rx * vy - ry * vx)
    o = out_ptr + offs * s_on
    tl.store(o, lx.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o + s_oc, ly.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o + 2 * s_oc, lz.to(out_ptr.dtype.element_ty), mask=mask)


def angular_momentum(r: torch.Tensor, v: torch.Tensor, m: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    N = r.shape[0]
    out = torch.empty((N, 3), dtype=r.dtype, device=r.device)
    if N:
        angular_momentum_kernel[(triton.cdiv(N, BLOCK),)](r, v, m, out, N, r.stride(0), r.stride(1), v.stride(0),
                                                          v.stride(1), m.stride(0), out.stride(0), out.stride(1),
                                                          BLOCK=BLOCK)
    return out


def reference(r: torch.Tensor, v: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return m[:, None] * torch.linalg.cross(r, v, dim=-1)


spec = kcheck.Spec(
    name="hx30_angular_momentum_ok",
    kernel=angular_momentum,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="position"), kcheck.Tensor("N", 3, name="velocity"),
            kcheck.Tensor("N", name="mass")],
    dims={"N": kcheck.Dim(nominal=2000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

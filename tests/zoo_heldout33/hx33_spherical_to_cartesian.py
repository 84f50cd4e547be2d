"""Spherical to Cartesian coordinates (physics convention: theta the polar angle from +z, phi the azimuth)::

    x = r sin(theta) cos(phi),   y = r sin(theta) sin(phi),   z = r cos(theta)

r, theta and phi are [N] vectors; the result is [N, 3]. Elementwise over BLOCK points per program, trigonometry in
fp32, strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def spherical_to_cartesian_kernel(r_ptr, t_ptr, p_ptr, out_ptr, N, stride_r, stride_t, stride_p, stride_on,
                                  stride_oc, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < N
    r = tl.load(r_ptr + offs * stride_r, mask=mask, other=0.0).to(tl.float32)
    theta = tl.load(t_ptr + offs * stride_t, mask=mask, other=0.0).to(tl.float32)
    phi = tl.load(p_ptr + offs * stride_p, mask=mask, other=0.0).to(tl.float32)
    rho = r * tl.sin(theta)  # distance from the z axis
    out = out_ptr + offs * stride_on
    ty = out_ptr.dtype.element_ty
    tl.store(out, (rho * tl.cos(phi)).to(ty), mask=mask)
    tl.store(out + stride_oc, (rho * tl.sin(phi)).to(ty), mask=mask)


def spherical_to_cartesian(r: torch.Tensor, theta: torch.Tensor, phi: torch.Tensor,
                           BLOCK: int = 1024) -> torch.Tensor:
    N = r.shape[0]
    out = torch.empty((N, 3), dtype=r.dtype, device=r.device)
    if N:
        spherical_to_cartesian_kernel[(triton.cdiv(N, BLOCK),)](r, theta, phi, out, N, r.stride(0), theta.stride(0),
                                                                phi.stride(0), out.stride(0), out.stride(1),
                                                                BLOCK=BLOCK)
    return out


def reference(r: torch.Tensor, theta: torch.Tensor, phi: torch.Tensor) -> torch.Tensor:
    rho = r * torch.sin(theta)
    return torch.stack((rho * torch.cos(phi), rho * torch.sin(phi), r * torch.cos(theta)), dim=-1)


spec = kcheck.Spec(
    name="spherical_to_cartesian",
    kernel=spherical_to_cartesian,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="r"), kcheck.Tensor("N", name="theta"), kcheck.Tensor("N", name="phi")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

"""Signed volumes of N tetrahedra (mesh quality, inverted-element detection): with vertices a, b, c, d as [N, 3]
rows, V = ((b - a) . ((c - a) x (d - a))) / 6. Edge vectors are formed first (translation invariant, well conditioned
far from the origin), fp32 arithmetic; BLOCK tetrahedra per program, int64 offsets, every stride honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def tet_volume_kernel(a_ptr, b_ptr, c_ptr, d_ptr, out_ptr, N, s_a0, s_a1, s_b0, s_b1, s_c0, s_c1, s_d0, s_d1,
                      BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    m = rows < N
    ax = tl.load(a_ptr + rows * s_a0, mask=m, other=0.0).to(tl.float32)
    ay = tl.load(a_ptr + rows * s_a0 + s_a1, mask=m, other=0.0).to(tl.float32)
    az = tl.load(a_ptr + rows * s_a0 + 2 * s_a1, mask=m, other=0.0).to(tl.float32)
    ux = tl.load(b_ptr + rows * s_b0, mask=m, other=0.0).to(tl.float32) - ax
    uy = tl.load(b_ptr + rows * s_b0 + s_b1, mask=m, other=0.0).to(tl.float32) - ay
    uz = tl.load(b_ptr + rows * s_b0 + 2 * s_b1, mask=m, other=0.0).to(tl.float32) - az
    vx = tl.load(c_ptr + rows * s_c0, mask=m, other=0.0).to(tl.float32) - ax
    vy = tl.load(c_ptr + rows * s_c0 + s_c1, mask=m, other=0.0).to(tl.float32) - ay
    vz = tl.load(c_ptr + rows * s_c0 + 2 * s_c1, mask=m, other=0.0).to(tl.float32) - az
    wx = tl.load(d_ptr + rows * s_d0, mask=m, other=0.0).to(tl.float32) - ax
    wy = tl.load(d_ptr + rows * s_d0 + s_d1, mask=m, other=0.0).to(tl.float32) - ay
    wz = tl.load(d_ptr + rows * s_d0 + 2 * s_d1, mask=m, other=0.0).to(tl.float32) - az
    vol = (ux * (vy * wz - vz * wy) + uy * (vz * wx - vx * wz) + uz * (vx * wy - vy * wx)) / 6.0
    tl.store(out_ptr + rows, vol.to(out_ptr.dtype.element_ty), mask=m)


def tet_volume(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, d: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    N = a.shape[0]
    out = torch.empty((N,), dtype=a.dtype, device=a.device)
    if N == 0:
        return out
    tet_volume_kernel[(triton.cdiv(N, BLOCK),)](
        a, b, c, d, out, N,
        a.stride(0), a.stride(1),
        b.stride(0), b.stride(1),
        3, 1,
        d.stride(0), d.stride(1),
        BLOCK=BLOCK)
    return out


def reference(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    return ((b - a) * torch.linalg.cross(c - a, d - a, dim=-1)).sum(-1) / 6.0


spec = kcheck.Spec(
    name="hx31_tetrahedron_volume",
    kernel=tet_volume,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="a"), kcheck.Tensor("N", 3, name="b"), kcheck.Tensor("N", 3, name="c"),
            kcheck.Tensor("N", 3, name="d")],
    dims={"N": kcheck.Dim(nominal=2000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

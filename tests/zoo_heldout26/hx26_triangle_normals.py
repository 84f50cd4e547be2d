"""Unit face normals and areas of a triangle soup: for triangles (v0, v1, v2), each [N, 3],

    n = (v1 - v0) x (v2 - v0),   area = |n| / 2,   normal = n / |n|   (0 for a degenerate triangle)

Each edge vector is first divided by its largest component magnitude (the direction of n does not change and the
area is scaled back), so tiny and huge meshes neither underflow nor overflow. One program per BLOCK triangles,
every vertex array read through its own row and component strides, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def _load3(at, s_c, ok):
    x = tl.load(at, mask=ok, other=0.0).to(tl.float32)
    y = tl.load(at + s_c, mask=ok, other=0.0).to(tl.float32)
    z = tl.load(at + 2 * s_c, mask=ok, other=0.0).to(tl.float32)
    return x, y, z


@triton.jit
def _scaled(x, y, z):
    big = tl.maximum(tl.maximum(tl.abs(x), tl.abs(y)), tl.abs(z))
    big = tl.where(big > 0.0, big, 1.0)
    return x / big, y / big, z / big, big


@triton.jit
def triangle_normals_kernel(v0_ptr, v1_ptr, v2_ptr, n_ptr, a_ptr, N,
                            s0r, s0c, s1r, s1c, s2r, s2c, s_nr, s_nc, s_a, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ok = rows < N
    ax, ay, az = _load3(v0_ptr + rows * s0r, s0c, ok)
    bx, by, bz = _load3(v1_ptr + rows * s1r, s1c, ok)
    cx, cy, cz = _load3(v2_ptr + rows * s2r, s2c, ok)
    ux, uy, uz, su = _scaled(bx - ax, by - ay, bz - az)
    vx, vy, vz, sv = _scaled(cx - ax, cy - ay, cz - az)
    nx = uy * vz - uz * vy
    ny = uz * vx - ux * vz
    nz = ux * vy - uy * vx
    length = tl.sqrt(nx * nx + ny * ny + nz * nz)
    inv = tl.where(length > 0.0, 1.0 / length, 0.0)
    ty = n_ptr.dtype.element_ty
    out = n_ptr + rows * s_nr
    tl.store(out, (nx * inv).to(ty), mask=ok)
    tl.store(out + s_nc, (ny * inv).to(ty), mask=ok)
    tl.store(out + 2 * s_nc, (nz * inv).to(ty), mask=ok)
    tl.store(a_ptr + rows * s_a, (0.5 * length * su * sv).to(a_ptr.dtype.element_ty), mask=ok)


def triangle_normals(v0: torch.Tensor, v1: torch.Tensor, v2: torch.Tensor,
                     BLOCK: int = 512) -> tuple[torch.Tensor, torch.Tensor]:
    N = v0.shape[0]
    normals = torch.empty((N, 3), dtype=v0.dtype, device=v0.device)
    areas = torch.empty((N,), dtype=v0.dtype, device=v0.device)
    if N == 0:
        return normals, areas
    triangle_normals_kernel[(triton.cdiv(N, BLOCK),)](
        v0, v1, v2, normals, areas, N,
        v0.stride(0), v0.stride(1),
        v1.stride(0), v1.stride(1),
        3, 1,
        normals.stride(0), normals.stride(1), areas.stride(0), BLOCK=BLOCK)
    return normals, areas


def _scaled_ref(e: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    big = torch.where(torch.isnan(e), torch.zeros_like(e), e).abs().amax(-1, keepdim=True)
    big = torch.where(big > 0, big, torch.ones_like(big))
    return e / big, big[..., 0]


def reference(v0: torch.Tensor, v1: torch.Tensor, v2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    u, su = _scaled_ref(v1 - v0)
    v, sv = _scaled_ref(v2 - v0)
    n = torch.linalg.cross(u, v, dim=-1)
    length = n.norm(dim=-1)
    unit = n * torch.where(length > 0, 1.0 / length, torch.zeros_like(length))[:, None]
    return unit, 0.5 * length * su * sv


spec = kcheck.Spec(
    name="hx26_triangle_normals",
    kernel=triangle_normals,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="v0"), kcheck.Tensor("N", 3, name="v1"), kcheck.Tensor("N", 3, name="v2")],
    dims={"N": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)

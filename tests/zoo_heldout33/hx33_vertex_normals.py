"""Area-weighted vertex normals of a triangle mesh: every face adds its unnormalized normal
(v1 - v0) x (v2 - v0) (twice its area along its normal) to each of its three corners, and each vertex's sum is
normalized (a vertex no face touches, or whose faces cancel exactly, gets the zero vector).

Pass 1: BLOCK_F faces per program build the face normals in fp32 as [BLOCK_F, 4] tiles (fourth column 0) and
add them into an fp32 [V, 4] accumulator with tl.atomic_add, corner by corner. Pass 2 normalizes BLOCK_V
vertices per program and stores them in the input dtype. Strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"

# every data pattern but "tiny": subnormal coordinates are not a mesh (their cross products underflow in fp32)
MESH_PATTERNS = ["randn", "zeros", "ones", "eye", "arange", "large", "nonfinite", "constant", "large_mean"]


@triton.jit
def face_normals_scatter_kernel(v_ptr, f_ptr, acc_ptr, F, stride_vn, stride_vc, stride_fn, stride_fc,
                                BLOCK_F: tl.constexpr):
    faces = tl.program_id(0).to(tl.int64) * BLOCK_F + tl.arange(0, BLOCK_F).to(tl.int64)
    fm = faces < F
    i0 = tl.load(f_ptr + faces * stride_fn, mask=fm, other=0).to(tl.int64)
    i1 = tl.load(f_ptr + faces * stride_fn + stride_fc, mask=fm, other=0).to(tl.int64)
    i2 = tl.load(f_ptr + faces * stride_fn + 2 * stride_fc, mask=fm, other=0).to(tl.int64)
    x0 = tl.load(v_ptr + i0 * stride_vn, mask=fm, other=0.0).to(tl.float32)
    y0 = tl.load(v_ptr + i0 * stride_vn + stride_vc, mask=fm, other=0.0).to(tl.float32)
    z0 = tl.load(v_ptr + i0 * stride_vn + 2 * stride_vc, mask=fm, other=0.0).to(tl.float32)
    ax = tl.load(v_ptr + i1 * stride_vn, mask=fm, other=0.0).to(tl.float32) - x0
    ay = tl.load(v_ptr + i1 * stride_vn + stride_vc, mask=fm, other=0.0).to(tl.float32) - y0
    az = tl.load(v_ptr + i1 * stride_vn + 2 * stride_vc, mask=fm, other=0.0).to(tl.float32) - z0
    bx = tl.load(v_ptr + i2 * stride_vn, mask=fm, other=0.0).to(tl.float32) - x0
    by = tl.load(v_ptr + i2 * stride_vn + stride_vc, mask=fm, other=0.0).to(tl.float32) - y0
    bz = tl.load(v_ptr + i2 * stride_vn + 2 * stride_vc, mask=fm, other=0.0).to(tl.float32) - z0
    nx = ay * bz - az * by
    ny = az * bx - ax * bz
    nz = ax * by - ay * bx
    comp = tl.arange(0, 4)[None, :]
    n = tl.where(comp == 0, nx[:, None], tl.where(comp == 1, ny[:, None], tl.where(comp == 2, nz[:, None], 0.0)))
    m = fm[:, None] & (comp < 3)
    for corner in tl.static_range(3):
        idx = tl.load(f_ptr + faces * stride_fn + corner * stride_fc, mask=fm, other=0).to(tl.int64)
        tl.store(acc_ptr + idx[:, None] * 4 + comp, tl.load(acc_ptr + idx[:, None] * 4 + comp, mask=m) + n, mask=m)


@triton.jit
def normalize_rows_kernel(acc_ptr, out_ptr, V, stride_on, stride_oc, BLOCK_V: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V).to(tl.int64)
    comp = tl.arange(0, 4)
    mask = (rows < V)[:, None] & (comp < 3)[None, :]
    n = tl.load(acc_ptr + rows[:, None] * 4 + comp[None, :], mask=mask, other=0.0)
    norm = tl.sqrt(tl.sum(n * n, axis=1))
    unit = tl.where(norm[:, None] == 0.0, 0.0, n / norm[:, None])
    tl.store(out_ptr + rows[:, None] * stride_on + comp[None, :] * stride_oc, unit.to(out_ptr.dtype.element_ty),
             mask=mask)


def vertex_normals(verts: torch.Tensor, faces: torch.Tensor, BLOCK_F: int = 128, BLOCK_V: int = 256) -> torch.Tensor:
    V = verts.shape[0]
    F = faces.shape[0]
    out = torch.empty((V, 3), dtype=verts.dtype, device=verts.device)
    if V == 0:
        return out
    acc = torch.zeros((V, 4), dtype=torch.float32, device=verts.device)
    if F:
        face_normals_scatter_kernel[(triton.cdiv(F, BLOCK_F),)](verts, faces, acc, F, verts.stride(0),
                                                               verts.stride(1), faces.stride(0), faces.stride(1),
                                                               BLOCK_F=BLOCK_F)
    normalize_rows_kernel[(triton.cdiv(V, BLOCK_V),)](acc, out, V, out.stride(0), out.stride(1), BLOCK_V=BLOCK_V)
    return out


def reference(verts: torch.Tensor, faces: torch.Tensor) -> torch.Tensor:
    v0, v1, v2 = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    n = torch.linalg.cross(v1 - v0, v2 - v0, dim=-1)
    acc = torch.zeros_like(verts)
    for corner in range(3):
        acc = acc.index_add(0, faces[:, corner], n)
    norm = acc.norm(dim=-1, keepdim=True)
    return torch.where(norm == 0, torch.zeros_like(acc), acc / norm)


spec = kcheck.Spec(
    name="vertex_normals",
    kernel=vertex_normals,
    reference=reference,
    inputs=[kcheck.Tensor("V", 3, name="vertices"), kcheck.Index("F", 3, high="V", name="faces")],
    dims={"V": kcheck.Dim(nominal=128), "F": kcheck.Dim(nominal=256)},
    patterns=MESH_PATTERNS,
    configs=[{"BLOCK_F": 128, "BLOCK_V": 256}, {"BLOCK_F": 16, "BLOCK_V": 32}],
)

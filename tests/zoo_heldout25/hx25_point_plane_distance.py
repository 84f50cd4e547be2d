"""Signed distances of 3-D points to a set of planes (RANSAC plane scoring, frustum and clipping tests): plane j
passes through origin o_j with unit normal n_j, and dist[i, j] = n_j . (p_i - o_j); a second output gives each
point's distance to its nearest plane, min_j |dist[i, j]|. One program per BLOCK_N points loops over the planes in
chunks of BLOCK_P (coordinates as zero-padded 4-wide rows, a [BLOCK_N, BLOCK_P, 4] fp32 product summed over
the last axis). The offset p - o is taken before the dot product, so points far
from the world origin (1e4 units) keep their centimetres. Strides passed explicitly, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def point_plane_kernel(p_ptr, o_ptr, n_ptr, dist_ptr, near_ptr, N, P, s_pn, s_pc, s_on, s_oc, s_nn, s_nc,
                       s_dn, s_dp, s_near, BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    c = tl.arange(0, 4).to(tl.int64)  # x, y, z and a zero pad
    i_mask = i < N
    c_mask = c < 3
    p = tl.load(p_ptr + i[:, None] * s_pn + c[None, :] * s_pc, mask=i_mask[:, None] & c_mask[None, :],
                other=0.0).to(tl.float32)
    nearest = tl.full([BLOCK_N], float("inf"), dtype=tl.float32)
    for j0 in range(0, P, BLOCK_P):
        j = j0 + tl.arange(0, BLOCK_P).to(tl.int64)
        j_mask = j < P
        jc_mask = j_mask[:, None] & c_mask[None, :]
        o = tl.load(o_ptr + j[:, None] * s_on + c[None, :] * s_oc, mask=jc_mask, other=0.0).to(tl.float32)
        nrm = tl.load(n_ptr + j[:, None] * s_nn + c[None, :] * s_nc, mask=jc_mask, other=0.0).to(tl.float32)
        d = tl.sum(p[:, None, :] * nrm[None, :, :], axis=2) - tl.sum(o * nrm, axis=1)[None, :]  # [BLOCK_N, BLOCK_P]
        mask = i_mask[:, None] & j_mask[None, :]
        tl.store(dist_ptr + i[:, None] * s_dn + j[None, :] * s_dp, d.to(dist_ptr.dtype.element_ty), mask=mask)
        nearest = tl.minimum(nearest, tl.min(tl.where(mask, tl.abs(d), float("inf")), axis=1))
    tl.store(near_ptr + i * s_near, nearest.to(near_ptr.dtype.element_ty), mask=i_mask)


def point_plane_distance(points, origins, normals, BLOCK_N=64, BLOCK_P=32):
    N, P = points.shape[0], origins.shape[0]
    dist = torch.empty((N, P), dtype=points.dtype, device=points.device)
    nearest = torch.empty((N,), dtype=points.dtype, device=points.device)
    if N == 0:
        return dist, nearest
    point_plane_kernel[(triton.cdiv(N, BLOCK_N),)](
        points, origins, normals, dist, nearest, N, P, points.stride(0), points.stride(1), origins.stride(0),
        origins.stride(1), normals.stride(0), normals.stride(1), dist.stride(0), dist.stride(1), nearest.stride(0),
        BLOCK_N=BLOCK_N, BLOCK_P=BLOCK_P)
    return dist, nearest


def unit_normals(ctx):
    n = torch.randn((ctx.dims["P"], 3), generator=ctx.generator, dtype=torch.float64)
    n = n / n.norm(dim=1, keepdim=True)
    return n.to(ctx.dtype).to(ctx.device)


def reference(points, origins, normals):
    dist = ((points[:, None, :] - origins[None, :, :]) * normals[None, :, :]).sum(-1)
    nearest = torch.where(dist.isnan(), float("inf"), dist.abs()).amin(1) if dist.shape[1] else \
        torch.full((dist.shape[0],), float("inf"), dtype=dist.dtype, device=dist.device)
    return dist, nearest


spec = kcheck.Spec(
    name="hx25_point_plane_distance",
    kernel=point_plane_distance,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="points"), kcheck.Tensor("P", 3, name="origins"),
            kcheck.Custom(unit_normals, name="normals", dims=("P", 3))],
    dims={"N": kcheck.Dim(nominal=1000), "P": kcheck.Dim(nominal=40)},
    configs=[{"BLOCK_N": 64, "BLOCK_P": 32}, {"BLOCK_N": 32, "BLOCK_P": 16}],
)

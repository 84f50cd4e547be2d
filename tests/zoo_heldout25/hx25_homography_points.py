"""Batched planar homographies applied to 2-D points (image registration, AR overlays): for each batch b and point
(x, y), [u, v, w] = H_b [x, y, 1]^T and the result is (u / w, v / w). One program per (batch, block of BLOCK
points): the 3x3 matrix is loaded once as a zero-padded 4x4 tile through its own three strides, the points as
homogeneous [BLOCK, 4] rows, and the product is a broadcast [BLOCK, 4, 4] multiply summed over the last axis.
fp32 arithmetic, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def homography_kernel(h_ptr, p_ptr, out_ptr, N, s_hb, s_hr, s_hc, s_pb, s_pn, s_pc, s_ob, s_on, s_oc,
                      BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    n = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    r = tl.arange(0, 4).to(tl.int64)
    c = tl.arange(0, 4).to(tl.int64)
    n_mask = n < N
    h_mask = (r < 3)[:, None] & (c < 3)[None, :]
    hm = tl.load(h_ptr + b * s_hb + r[:, None] * s_hc + c[None, :] * s_hr, mask=h_mask, other=0.0).to(tl.float32)
    p_mask = n_mask[:, None] & (c < 2)[None, :]
    pts = tl.load(p_ptr + b * s_pb + n[:, None] * s_pn + c[None, :] * s_pc, mask=p_mask, other=0.0).to(tl.float32)
    ph = tl.where((c == 2)[None, :], 1.0, pts)                      # homogeneous (x, y, 1, 0)
    o = tl.sum(hm[None, :, :] * ph[:, None, :], axis=2)              # [BLOCK, 4]: (u, v, w, 0)
    w = tl.sum(tl.where((r == 2)[None, :], o, 0.0), axis=1)
    res = o / w[:, None]
    o_mask = n_mask[:, None] & (r < 2)[None, :]
    tl.store(out_ptr + b * s_ob + n[:, None] * s_on + r[None, :] * s_oc, res.to(out_ptr.dtype.element_ty),
             mask=o_mask)


def apply_homography(h, pts, BLOCK=64):
    B, N, _ = pts.shape
    out = torch.empty((B, N, 2), dtype=pts.dtype, device=pts.device)
    if B == 0 or N == 0:
        return out
    homography_kernel[(B, triton.cdiv(N, BLOCK))](
        h, pts, out, N, h.stride(0), h.stride(1), h.stride(2), pts.stride(0), pts.stride(1), pts.stride(2),
        out.stride(0), out.stride(1), out.stride(2), BLOCK=BLOCK)
    return out


def make_homographies(ctx):
    """Well-conditioned homographies: identity + 0.1 randn in the affine part, 1e-5 randn perspective terms (as
    for pixel coordinates), so that w stays near 1 even for points of magnitude 1e4. Column-major storage in the
    strided layout."""
    B = ctx.dims["B"]
    h = torch.eye(3).repeat(B, 1, 1)
    h[:, :2, :] += 0.1 * torch.randn((B, 2, 3), generator=ctx.generator)
    h[:, 2, :2] += 1e-5 * torch.randn((B, 2), generator=ctx.generator)
    h = h.to(ctx.dtype)
    if ctx.layout == "strided":
        h = h.transpose(1, 2).contiguous().transpose(1, 2)
    return h.to(ctx.device)


def reference(h, pts):
    ph = torch.cat([pts, torch.ones_like(pts[..., :1])], dim=-1)     # [B, N, 3]
    o = ph @ h.transpose(1, 2)                                       # rows H @ p
    return o[..., :2] / o[..., 2:]


spec = kcheck.Spec(
    name="hx25_homography_points",
    kernel=apply_homography,
    reference=reference,
    inputs=[kcheck.Custom(make_homographies, name="h", dims=("B", 3, 3)), kcheck.Tensor("B", "N", 2, name="pts")],
    dims={"B": kcheck.Dim(nominal=6, max=512), "N": kcheck.Dim(nominal=500)},
    configs=[{"BLOCK": 64}, {"BLOCK": 16}],
)

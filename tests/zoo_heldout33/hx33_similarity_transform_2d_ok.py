"""2-D similarity transform of keypoints, one transform per image (scale s, rotation angle a, translation t)::

    out[b, p] = s[b] * R(a[b]) @ pts[b, p] + t[b],    R(a) = [[cos a, -sin a], [sin a, cos a]]

pts is [B, P, 2] and the transforms are rows of a [B, 4] tensor (s, a, tx, ty), as image-alignment and
augmentation pipelines carry them. Each program takes BLOCK keypoints of one image; fp32 arithmetic, strides
honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def similarity_kernel(p_ptr, t_ptr, out_ptr, P, stride_pb, stride_pp, stride_pc, stride_tb, stride_tc, stride_ob,
                      stride_op, stride_oc, BLOCK: tl.constexpr):
    b = tl.program_id(1).to(tl.int64)
    pts = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = pts < P
    tr = t_ptr + b * stride_tb
    scale = tl.load(tr).to(tl.float32)
    angle = tl.load(tr + stride_tc).to(tl.float32)
    tx = tl.load(tr + 2 * stride_tc).to(tl.float32)
    ty = tl.load(tr + 3 * stride_tc).to(tl.float32)
    sc = scale * tl.cos(angle)
    ss = scale * tl.sin(angle)
    src = p_ptr + b * stride_pb + pts * stride_pp
    x = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(src + stride_pc, mask=mask, other=0.0).to(tl.float32)
    dst = out_ptr + b * stride_ob + pts * stride_op
    kind = out_ptr.dtype.element_ty
    tl.store(dst, (sc * x - ss * y + tx).to(kind), mask=mask)
    tl.store(dst + stride_oc, (ss * x + sc * y + ty).to(kind), mask=mask)


def similarity_transform_2d(pts: torch.Tensor, transforms: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    B, P, _ = pts.shape
    out = torch.empty((B, P, 2), dtype=pts.dtype, device=pts.device)
    if B and P:
        similarity_kernel[(triton.cdiv(P, BLOCK), B)](
            pts, transforms, out, P, pts.stride(0), pts.stride(1), pts.stride(2), transforms.stride(0),
            transforms.stride(1), out.stride(0), out.stride(1), out.stride(2), BLOCK=BLOCK)
    return out


def reference(pts: torch.Tensor, transforms: torch.Tensor) -> torch.Tensor:
    s, a, tx, ty = transforms.unbind(-1)
    c, sn = (s * torch.cos(a))[:, None], (s * torch.sin(a))[:, None]
    x, y = pts[..., 0], pts[..., 1]
    return torch.stack((c * x - sn * y + tx[:, None], sn * x + c * y + ty[:, None]), dim=-1)


spec = kcheck.Spec(
    name="similarity_transform_2d",
    kernel=similarity_transform_2d,
    reference=reference,
    inputs=[kcheck.Tensor("B", "P", 2, name="keypoints"), kcheck.Tensor("B", 4, name="transforms")],
    dims={"B": kcheck.Dim(nominal=8, max=64), "P": kcheck.Dim(nominal=500)},
    configs=[{"BLOCK": 256}, {"BLOCK": 32}],
)

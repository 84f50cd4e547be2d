"""Decode a tangent-space normal map to unit normals (real-time graphics).

n = normalize(2 * rgb - 1) per texel, with F.normalize's convention n / max(|n|, 1e-12). Texels are rows of three
channels ([P, 3], e.g. a view of a padded RGBA texture); one program per BLOCK texels loads the three channels as
columns, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"

EPS = 1e-12


@triton.jit
def normal_decode_kernel(x_ptr, out_ptr, P, s_xp, s_xc, s_op, s_oc, BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = p < P
    base = x_ptr + p * s_xp
    nx = 2.0 * tl.load(base, mask=mask, other=0.0).to(tl.float32) - 1.0
    ny = 2.0 * tl.load(base + s_xc, mask=mask, other=0.0).to(tl.float32) - 1.0
    nz = 2.0 * tl.load(base + 2 * s_xc, mask=mask, other=0.0).to(tl.float32) - 1.0
    norm = tl.sqrt(nx * nx + ny * ny + nz * nz)
    inv = 1.0 / tl.where(norm < EPS, EPS, norm)
    ob = out_ptr + p * s_op
    ty = out_ptr.dtype.element_ty
    tl.store(ob, (nx * inv).to(ty), mask=mask)
    tl.store(ob + s_oc, (ny * inv).to(ty), mask=mask)
    tl.store(ob + 2 * s_oc, (nz * inv).to(ty), mask=mask)


def normal_decode(rgb, BLOCK=256):
    P = rgb.shape[0]
    out = torch.empty((P, 3), dtype=rgb.dtype, device=rgb.device)
    if P == 0:
        return out
    normal_decode_kernel[(triton.cdiv(P, BLOCK),)](rgb, out, P, 3, 1, out.stride(0),
                                                   out.stride(1), BLOCK=BLOCK)
    return out


def reference(rgb):
    return torch.nn.functional.normalize(2.0 * rgb - 1.0, dim=-1, eps=EPS)


spec = kcheck.Spec(
    name="hx35_normal_map_decode",
    kernel=normal_decode,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb")],
    dims={"P": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

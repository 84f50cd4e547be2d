"""2x bilinear upsampling of an RGB image (align_corners=False, as F.interpolate and torchvision's resize do), the
resize step of an image preprocessing pipeline.

x is [3, H, W] (one image, channels first); the output is [3, 2H, 2W]. For output pixel
(i, j) the source coordinate is ((i + 0.5) / 2 - 0.5, (j + 0.5) / 2 - 0.5), clamped at 0; the four neighbours are
blended in fp32. The output is cut into BH x BW tiles; one program per (plane, tile), all on grid axis 0 so that
neither a tall image nor many planes hits CUDA's 65535 limit on the other axes.
"""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def upsample2x_kernel(x_ptr, out_ptr, H, W, OH, OW, tiles_h, tiles_w, stride_xc, stride_xh, stride_xw,
                      BH: tl.constexpr, BW: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    per_plane = tiles_h * tiles_w
    c = pid // per_plane
    t = pid % per_plane
    oi = (t // tiles_w) * BH + tl.arange(0, BH)
    oj = (t % tiles_w) * BW + tl.arange(0, BW)
    si = tl.maximum((oi.to(tl.float32) + 0.5) * 0.5 - 0.5, 0.0)
    sj = tl.maximum((oj.to(tl.float32) + 0.5) * 0.5 - 0.5, 0.0)
    i0 = si.to(tl.int32)
    j0 = sj.to(tl.int32)
    li = si - i0.to(tl.float32)
    lj = sj - j0.to(tl.float32)
    i1 = tl.minimum(i0 + 1, H - 1)
    j1 = tl.minimum(j0 + 1, W - 1)
    mask = (oi < OH)[:, None] & (oj < OW)[None, :]
    base = x_ptr + c * stride_xc
    r0 = base + i0.to(tl.int64)[:, None] * stride_xh
    r1 = base + i1.to(tl.int64)[:, None] * stride_xh
    c0 = j0.to(tl.int64)[None, :] * stride_xw
    c1 = j1.to(tl.int64)[None, :] * stride_xw
    v00 = tl.load(r0 + c0, mask=mask, other=0.0).to(tl.float32)
    v01 = tl.load(r0 + c1, mask=mask, other=0.0).to(tl.float32)
    v10 = tl.load(r1 + c0, mask=mask, other=0.0).to(tl.float32)
    v11 = tl.load(r1 + c1, mask=mask, other=0.0).to(tl.float32)
    wj1 = lj[None, :]
    wj0 = 1.0 - wj1
    wi1 = li[:, None]
    wi0 = 1.0 - wi1
    y = wi0 * (wj0 * v00 + wj1 * v01) + wi1 * (wj0 * v10 + wj1 * v11)
    dst = out_ptr + c * OH * OW + oi.to(tl.int64)[:, None] * OW + oj.to(tl.int64)[None, :]
    tl.store(dst, y.to(out_ptr.dtype.element_ty), mask=mask)


def upsample2x(x: torch.Tensor, BH: int = 32, BW: int = 64) -> torch.Tensor:
    C, H, W = x.shape
    OH, OW = 2 * H, 2 * W
    out = torch.empty((C, OH, OW), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    tiles_h, tiles_w = triton.cdiv(OH, BH), OW // BW
    upsample2x_kernel[(C * tiles_h * tiles_w,)](x, out, H, W, OH, OW, tiles_h, tiles_w, x.stride(0), x.stride(1),
                                                x.stride(2), BH=BH, BW=BW)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.interpolate(x[None], scale_factor=2, mode="bilinear", align_corners=False)[0]


spec = kcheck.Spec(
    name="hx14_bilinear_upsample2x",
    kernel=upsample2x,
    reference=reference,
    inputs=[kcheck.Tensor(3, "H", "W", name="image")],
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=96)},
    configs=[{"BH": 32, "BW": 64}, {"BH": 16, "BW": 128}],
    properties=[kcheck.props.linear()],
)

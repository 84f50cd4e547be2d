"""Saturation adjustment of linear RGB pixels around their Rec. 709 luminance.

    L = 0.2126 R + 0.7152 G + 0.0722 B;   out = L + s * (rgb - L)       (s = SATURATION; s = 0 gives grey)

Pixels are rows of an [P, 3] tensor; each program takes BLOCK_P pixels as a [BLOCK_P, 4] tile (the fourth lane
masked off), computes the luminance with a row reduction, fp32 math, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"

SATURATION = 1.4
LUMA = (0.2126, 0.7152, 0.0722)


@triton.jit
def saturation_kernel(x_ptr, y_ptr, P, sxp, sxc, syp, syc, s, wr, wg, wb, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pix = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    ch = tl.arange(0, 4)
    mask = (pix < P)[:, None] & (ch < 3)[None, :]
    x = tl.load(x_ptr + pix[:, None] * sxp + ch[None, :] * sxc, mask=mask, other=0.0).to(tl.float32)
    w = tl.where(ch == 0, wr, tl.where(ch == 1, wg, tl.where(ch == 2, wb, 0.0)))
    lum = tl.sum(x * w[None, :], axis=1)
    y = lum[:, None] + s * (x - lum[:, None])
    tl.store(y_ptr + pix[:, None] * syp + ch[None, :] * syc, y.to(y_ptr.dtype.element_ty), mask=mask)


def saturation_adjust(rgb, BLOCK_P=256):
    P = rgb.shape[0]
    out = torch.empty((P, 3), dtype=rgb.dtype, device=rgb.device)
    if P:
        saturation_kernel[(triton.cdiv(P, BLOCK_P),)](rgb, out, P, rgb.stride(0), rgb.stride(1), out.stride(0),
                                                      out.stride(1), SATURATION, *LUMA, BLOCK_P=BLOCK_P)
    return rgb


def reference(rgb):
    w = torch.tensor(LUMA, dtype=rgb.dtype, device=rgb.device)
    lum = (rgb * w).sum(-1, keepdim=True)
    return lum + SATURATION * (rgb - lum)


spec = kcheck.Spec(
    name="hx22_saturation_adjust",
    kernel=saturation_adjust,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb")],
    dims={"P": kcheck.Dim(nominal=4096, real=(1920 * 1080,))},
    configs=[{"BLOCK_P": 256}, {"BLOCK_P": 32}],
)

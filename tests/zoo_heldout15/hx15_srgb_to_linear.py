"""sRGB decoding of an RGB image [3, H, W] to linear light (IEC 61966-2-1), the first step of a colour-correct
resize or blend; values are clamped to [0, 1] first (NaN stays NaN):

    c <= 0.04045:  c / 12.92
    otherwise:     ((c + 0.055) / 1.055) ^ 2.4

A 1-D flat grid over the 3*H*W values; each lane splits its index into (channel, row, column) and reads through the
strides. Computes in fp32. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def srgb_to_linear_kernel(x_ptr, out_ptr, H, W, s_xc, s_xh, s_xw, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < 3 * H * W
    c = offs // (H * W)
    h = (offs // W) % H
    w = offs % W
    v = tl.load(x_ptr + c * s_xc + h * s_xh + w * s_xw, mask=mask, other=0.0).to(tl.float32)
    v = tl.where(v < 0.0, 0.0, tl.where(v > 1.0, 1.0, v))
    lo = v / 12.92
    base = (tl.maximum(v, 0.04045) + 0.055) / 1.055
    hi = tl.exp2(2.2 * tl.log2(base))
    y = tl.where(v <= 0.04045, lo, hi)
    y = tl.where(v != v, v, y)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def srgb_to_linear(img, BLOCK=1024):
    _, H, W = img.shape
    out = torch.empty((3, H, W), dtype=img.dtype, device=img.device)
    if out.numel() == 0:
        return out
    srgb_to_linear_kernel[(triton.cdiv(3 * H * W, BLOCK),)](img, out, H, W, img.stride(0), img.stride(1),
                                                           img.stride(2), BLOCK=BLOCK)
    return out


def reference(img):
    c = img.clamp(0.0, 1.0)
    return torch.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


spec = kcheck.Spec(
    name="hx15_srgb_to_linear",
    kernel=srgb_to_linear,
    reference=reference,
    inputs=[kcheck.Tensor(3, "H", "W", name="rgb")],
    dims={"H": kcheck.Dim(nominal=64, real=(720,)), "W": kcheck.Dim(nominal=96, real=(1280,))},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

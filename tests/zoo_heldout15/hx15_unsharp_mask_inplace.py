"""Unsharp masking of a grayscale image [H, W] in place (the sharpening step of a camera / document pipeline):

    blur = 3x3 box mean of img (edges replicated)
    img <- img + amount * (img - blur)

2-D tiles of BLOCK_H x BLOCK_W pixels; each program reads its tile's nine shifted neighbourhoods from `src`
(clamped indices) and writes the sharpened tile into the image. amount is a mode.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def unsharp_kernel(src_ptr, img_ptr, H, W, amount, s_sh, s_sw, s_ih, s_iw,
                   BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    hs = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    ws = tl.program_id(1).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (hs < H)[:, None] & (ws < W)[None, :]
    center = tl.load(src_ptr + hs[:, None] * s_sh + ws[None, :] * s_sw, mask=mask, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_W], dtype=tl.float32)
    for dh in tl.static_range(-1, 2):
        hh = tl.minimum(tl.maximum(hs + dh, 0), H - 1)
        for dw in tl.static_range(-1, 2):
            ww = tl.minimum(tl.maximum(ws + dw, 0), W - 1)
            acc += tl.load(src_ptr + hh[:, None] * s_sh + ww[None, :] * s_sw, mask=mask, other=0.0).to(tl.float32)
    blur = acc / 9.0
    out = center + amount * (center - blur)
    tl.store(img_ptr + hs[:, None] * s_ih + ws[None, :] * s_iw, out.to(img_ptr.dtype.element_ty), mask=mask)


def unsharp_mask_(img, amount=0.5, BLOCK_H=16, BLOCK_W=32):
    H, W = img.shape
    if H == 0 or W == 0:
        return img
    src = img
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    unsharp_kernel[grid](src, img, H, W, amount, src.stride(0), src.stride(1), img.stride(0), img.stride(1),
                         BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return img


def reference(img, amount=0.5):
    H, W = img.shape
    if H == 0 or W == 0:
        return img.clone()
    p = torch.nn.functional.pad(img[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    blur = sum(p[i:i + H, j:j + W] for i in range(3) for j in range(3)) / 9.0
    return img + amount * (img - blur)


spec = kcheck.Spec(
    name="hx15_unsharp_mask_inplace",
    kernel=unsharp_mask_,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="img", mutated=True)],
    dims={"H": kcheck.Dim(nominal=96, real=(480,)), "W": kcheck.Dim(nominal=128, real=(640,))},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
    params={"amount": [0.5, 1.5]},
)

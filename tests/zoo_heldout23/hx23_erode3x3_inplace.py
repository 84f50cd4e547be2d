"""Grayscale morphological erosion with a 3x3 square structuring element, in place: every pixel of the [H, W]
image becomes the minimum of its 3x3 neighbourhood (borders replicated), NaN propagating.

The image is updated in place: the launcher first takes a snapshot of it, and every tile program reads its
neighbourhoods (halo included) from the snapshot and writes the eroded tile into the image, so no program reads
a pixel another has already eroded. 2-D tiles, 1-D grid over the tiles, any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def erode3x3_kernel(src_ptr, dst_ptr, H, W, tiles_w, ssh, ssw, sdh, sdw, BLOCK_H: tl.constexpr,
                    BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    th = pid // tiles_w
    tw = pid % tiles_w
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    acc = tl.full([BLOCK_H, BLOCK_W], float("inf"), dtype=tl.float32)
    for dy in tl.static_range(-1, 2):
        r = tl.minimum(tl.maximum(rows + dy, 0), H - 1)
        for dx in tl.static_range(-1, 2):
            c = tl.minimum(tl.maximum(cols + dx, 0), W - 1)
            v = tl.load(src_ptr + r[:, None] * ssh + c[None, :] * ssw, mask=mask, other=0.0).to(tl.float32)
            acc = tl.minimum(acc, v, propagate_nan=tl.PropagateNan.ALL)
    tl.store(dst_ptr + rows[:, None] * sdh + cols[None, :] * sdw, acc.to(dst_ptr.dtype.element_ty), mask=mask)


def erode3x3_(img: torch.Tensor, BLOCK_H: int = 32, BLOCK_W: int = 32) -> torch.Tensor:
    H, W = img.shape
    if H == 0 or W == 0:
        return img
    src = img
    tiles_w = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * tiles_w,)
    erode3x3_kernel[grid](src, img, H, W, tiles_w, src.stride(0), src.stride(1), img.stride(0), img.stride(1),
                          BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return img


def reference(img: torch.Tensor) -> torch.Tensor:
    H, W = img.shape
    if H == 0 or W == 0:
        return img.clone()
    p = torch.nn.functional.pad(img[None], (1, 1, 1, 1), mode="replicate")[0]
    shifts = [p[dy:dy + H, dx:dx + W] for dy in range(3) for dx in range(3)]
    return torch.stack(shifts).amin(0)


BUG_CLASS = "race"

spec = kcheck.Spec(
    name="hx23_erode3x3_inplace",
    kernel=erode3x3_,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="image", mutated=True)],
    dims={"H": kcheck.Dim(nominal=96, real=()), "W": kcheck.Dim(nominal=128, real=())},
    configs=[{"BLOCK_H": 32, "BLOCK_W": 32}, {"BLOCK_H": 16, "BLOCK_W": 64}],
)

"""Letterbox padding of a planar image batch [C, H, W] onto a larger canvas, as detector preprocessing does:
out[c, i, j] = img[c, i - pad_h, j - pad_w] inside the pasted window, the gray fill value elsewhere. The canvas is
[C, H + 2 pad_h, W + 2 pad_w]. Output rows (c, i) are flattened to one axis and tiled with the columns on a 1-D
grid; the source may have any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"

FILL = 0.5


@triton.jit
def letterbox_kernel(x_ptr, out_ptr, H, W, HO, WO, R, pad_h, pad_w, sxc, sxh, sxw, soc, soh, sow, fill,
                     n_col_tiles, BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tile_r = pid // n_col_tiles
    tile_w = pid % n_col_tiles
    r = tile_r * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)  # flattened output row: c * HO + i
    j = tile_w * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    c = r // HO
    i = r % HO
    si = i - pad_h
    sj = j - pad_w
    out_mask = (r < R)[:, None] & (j < WO)[None, :]
    inside = ((si >= 0) & (si < H))[:, None] & ((sj >= 0) & (sj <= W))[None, :]
    src = x_ptr + c[:, None] * sxc + si[:, None] * sxh + sj[None, :] * sxw
    v = tl.load(src, mask=out_mask & inside, other=0.0).to(tl.float32)
    v = tl.where(inside, v, fill)
    tl.store(out_ptr + c[:, None] * soc + i[:, None] * soh + j[None, :] * sow, v.to(out_ptr.dtype.element_ty),
             mask=out_mask)


def letterbox_pad(img: torch.Tensor, pad_h: int = 3, pad_w: int = 5, BLOCK_R: int = 16,
                  BLOCK_W: int = 64) -> torch.Tensor:
    C, H, W = img.shape
    HO, WO = H + 2 * pad_h, W + 2 * pad_w
    out = torch.empty((C, HO, WO), dtype=img.dtype, device=img.device)
    R = C * HO
    if R == 0 or WO == 0:
        return out
    n_col_tiles = triton.cdiv(WO, BLOCK_W)
    grid = (triton.cdiv(R, BLOCK_R) * n_col_tiles,)
    letterbox_kernel[grid](img, out, H, W, HO, WO, R, pad_h, pad_w, img.stride(0), img.stride(1), img.stride(2),
                           out.stride(0), out.stride(1), out.stride(2), FILL, n_col_tiles,
                           BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W)
    return out


def reference(img: torch.Tensor, pad_h: int = 3, pad_w: int = 5) -> torch.Tensor:
    return torch.nn.functional.pad(img, (pad_w, pad_w, pad_h, pad_h), mode="constant", value=FILL)


spec = kcheck.Spec(
    name="hx24_letterbox_pad",
    kernel=letterbox_pad,
    reference=reference,
    inputs=[kcheck.Tensor("C", "H", "W")],
    params={"pad_h": [3, 0], "pad_w": [5, 16]},
    dims={"C": kcheck.Dim(nominal=3, max=4, real=()), "H": kcheck.Dim(nominal=48), "W": kcheck.Dim(nominal=80)},
    configs=[{"BLOCK_R": 16, "BLOCK_W": 64}, {"BLOCK_R": 4, "BLOCK_W": 32}],
)

"""Well-exposedness weight of exposure fusion (Mertens et al.): for an RGB image in HWC layout with values in
[0, 1], w[h, w] = prod_c exp(-(I_c - 0.5)^2 / (2 sigma^2)) with sigma = 0.2, i.e. exp(-sum_c (I_c - 0.5)^2 /
(2 sigma^2)). Tiled over (rows, columns) on a 1-D grid; any strides; fp32 math, output in the image dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

SIGMA = 0.2


@triton.jit
def exposure_weight_kernel(x_ptr, out_ptr, H, W, sxh, sxw, sxc, soh, sow, inv_two_sigma2, n_col_tiles,
                           BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tile_h = pid // n_col_tiles
    tile_w = pid % n_col_tiles
    rows = tile_h * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tile_w * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    px = x_ptr + rows[:, None] * sxh + cols[None, :] * sxw
    r = tl.load(px, mask=mask, other=0.5).to(tl.float32)
    g = tl.load(px + sxc).to(tl.float32)
    b = tl.load(px + 2 * sxc, mask=mask, other=0.5).to(tl.float32)
    d = (r - 0.5) * (r - 0.5) + (g - 0.5) * (g - 0.5) + (b - 0.5) * (b - 0.5)
    w = tl.exp(-d * inv_two_sigma2)
    tl.store(out_ptr + rows[:, None] * soh + cols[None, :] * sow, w.to(out_ptr.dtype.element_ty), mask=mask)


def exposure_weight(img: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 64) -> torch.Tensor:
    H, W, C = img.shape
    assert C == 3
    out = torch.empty((H, W), dtype=img.dtype, device=img.device)
    if H == 0 or W == 0:
        return out
    n_col_tiles = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * n_col_tiles,)
    exposure_weight_kernel[grid](img, out, H, W, img.stride(0), img.stride(1), img.stride(2), out.stride(0),
                                 out.stride(1), 1.0 / (2.0 * SIGMA * SIGMA), n_col_tiles,
                                 BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(img: torch.Tensor) -> torch.Tensor:
    d = ((img - 0.5) ** 2).sum(-1)
    return torch.exp(-d / (2.0 * SIGMA * SIGMA))


spec = kcheck.Spec(
    name="hx24_exposure_weight",
    kernel=exposure_weight,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", 3)],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 8, "BLOCK_W": 32}],
)

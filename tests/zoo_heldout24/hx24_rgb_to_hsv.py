"""RGB to HSV conversion of an image [H, W, 3] (HWC, any strides) into three planes H, S, V of shape [H, W]:
V = max(r, g, b); delta = V - min(r, g, b); S = delta / V (0 where V = 0, black); hue in [0, 1) from the channel that holds
the maximum (r first, then g), 0 for gray pixels (delta = 0). Tiled on a 1-D grid; fp32 math.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def rgb_to_hsv_kernel(x_ptr, h_ptr, s_ptr, v_ptr, H, W, sxh, sxw, sxc, n_col_tiles,
                      BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    th = pid // n_col_tiles
    tw = pid % n_col_tiles
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    px = x_ptr + rows[:, None] * sxh + cols[None, :] * sxw
    r = tl.load(px, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(px + sxc, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(px + 2 * sxc, mask=mask, other=0.0).to(tl.float32)
    cmax = tl.maximum(tl.maximum(r, g), b)
    cmin = tl.minimum(tl.minimum(r, g), b)
    delta = cmax - cmin
    sat = delta / cmax
    safe = tl.where(delta > 0, delta, 1.0)
    hr = (g - b) / safe
    hr = tl.where(hr < 0, hr + 6.0, hr)
    hg = (b - r) / safe + 2.0
    hb = (r - g) / safe + 4.0
    hue = tl.where(cmax == r, hr, tl.where(cmax == g, hg, hb)) / 6.0
    hue = tl.where(delta > 0, hue, 0.0)
    o = rows[:, None] * W + cols[None, :]
    tl.store(h_ptr + o, hue.to(h_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + o, sat.to(s_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + o, cmax.to(v_ptr.dtype.element_ty), mask=mask)


def rgb_to_hsv(img: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 64):
    H, W, C = img.shape
    assert C == 3
    h, s, v = (torch.empty((H, W), dtype=img.dtype, device=img.device) for _ in range(3))
    if H and W:
        n_col_tiles = triton.cdiv(W, BLOCK_W)
        rgb_to_hsv_kernel[(triton.cdiv(H, BLOCK_H) * n_col_tiles,)](
            img, h, s, v, H, W, img.stride(0), img.stride(1), img.stride(2), n_col_tiles,
            BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return h, s, v


def reference(img: torch.Tensor):
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    cmax = torch.fmax(torch.fmax(r, g), b)  # a NaN channel is ignored, as the GPU's max/min do
    cmin = torch.fmin(torch.fmin(r, g), b)
    delta = cmax - cmin
    zero = torch.zeros_like(cmax)
    sat = torch.where(cmax != 0, delta / torch.where(cmax != 0, cmax, 1.0), zero)
    safe = torch.where(delta > 0, delta, 1.0)
    hr = (g - b) / safe
    hr = torch.where(hr < 0, hr + 6.0, hr)
    hue = torch.where(cmax == r, hr, torch.where(cmax == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0)) / 6.0
    hue = torch.where(delta > 0, hue, zero)
    return hue, sat, cmax


spec = kcheck.Spec(
    name="hx24_rgb_to_hsv",
    kernel=rgb_to_hsv,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", 3)],
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 4, "BLOCK_W": 32}],
)

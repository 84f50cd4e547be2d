"""Extended Reinhard tone mapping of an HDR luminance image.

    L = max(x, 0);   y = L * (1 + L / white^2) / (1 + L)

Luminance equal to the white point maps to 1; negative values (sensor noise after black-level subtraction) map to
0, NaN stays NaN. The image is cut into BLOCK_H x BLOCK_W tiles, one program per tile on a 1-D grid (tile row =
pid // tiles per row), int64 offsets, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"

WHITE = 4.0


@triton.jit
def reinhard_kernel(x_ptr, y_ptr, H, W, sxh, sxw, syh, syw, inv_white2, n_tiles_w,
                    BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_tiles_w) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = (pid % n_tiles_w) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxh + cols[None, :] * sxw, mask=mask, other=0.0).to(tl.float32)
    lum = tl.where(x < 0.0, 0.0, x)
    y = lum * (1.0 + lum * inv_white2) / (1.0 + lum)
    tl.store(y_ptr + rows[:, None] * syh + cols[None, :] * syw, y.to(y_ptr.dtype.element_ty), mask=mask)


def reinhard(hdr: torch.Tensor, BLOCK_H: int = 8, BLOCK_W: int = 128) -> torch.Tensor:
    H, W = hdr.shape
    out = torch.empty((H, W), dtype=hdr.dtype, device=hdr.device)
    if H == 0 or W == 0:
        return out
    n_tiles_w = W // BLOCK_W
    grid = (triton.cdiv(H, BLOCK_H) * n_tiles_w,)
    reinhard_kernel[grid](hdr, out, H, W, hdr.stride(0), hdr.stride(1), out.stride(0), out.stride(1),
                          1.0 / (WHITE * WHITE), n_tiles_w, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(hdr: torch.Tensor) -> torch.Tensor:
    lum = torch.where(hdr < 0, torch.zeros_like(hdr), hdr)
    return lum * (1.0 + lum / WHITE**2) / (1.0 + lum)


spec = kcheck.Spec(
    name="hx22_reinhard_tonemap",
    kernel=reinhard,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="hdr")],
    dims={"H": kcheck.Dim(nominal=64, real=()), "W": kcheck.Dim(nominal=256, real=(1920,))},
    configs=[{"BLOCK_H": 8, "BLOCK_W": 128}, {"BLOCK_H": 32, "BLOCK_W": 32}],
)

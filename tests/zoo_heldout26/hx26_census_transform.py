"""Census transform for stereo matching: each pixel becomes an 8-bit code, one bit per neighbour of its 3x3
window, set where the neighbour is darker than the centre (Zabih & Woodfill). Neighbours outside the image are read
as +inf, so they never set a bit. Images are [B, H, W] in any floating dtype; the codes are int32.

One program per 2-D tile of one image; the eight neighbour loads are one static loop over the window offsets.
Strides are honoured, tile offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def census_kernel(img_ptr, out_ptr, H, W, s_ib, s_ih, s_iw, s_ob, s_oh, s_ow,
                  BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    inside = (rows < H)[:, None] & (cols < W)[None, :]
    base = img_ptr + b * s_ib
    centre = tl.load(base + rows[:, None] * s_ih + cols[None, :] * s_iw, mask=inside, other=0.0)
    code = tl.zeros([BLOCK_H, BLOCK_W], dtype=tl.int32)
    for k in tl.static_range(9):
        if k != 4:
            rr = rows + (k // 3 - 1)
            cc = cols + (k % 3 - 1)
            ok = inside & ((rr >= 0) & (rr < H))[:, None] & ((cc >= 0) & (cc < W))[None, :]
            nb = tl.load(base + rr[:, None] * s_ih + cc[None, :] * s_iw, mask=inside, other=float("inf"))
            bit = (nb < centre).to(tl.int32)
            code = code | (bit << (k if k < 4 else k - 1))
    tl.store(out_ptr + b * s_ob + rows[:, None] * s_oh + cols[None, :] * s_ow, code, mask=inside)


def census_transform(img: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 32) -> torch.Tensor:
    B, H, W = img.shape
    out = torch.empty((B, H, W), dtype=torch.int32, device=img.device)
    if out.numel() == 0:
        return out
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W), B)
    census_kernel[grid](img, out, H, W, img.stride(0), img.stride(1), img.stride(2),
                        out.stride(0), out.stride(1), out.stride(2), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(img: torch.Tensor) -> torch.Tensor:
    B, H, W = img.shape
    padded = torch.nn.functional.pad(img, (1, 1, 1, 1), value=float("inf"))
    code = torch.zeros((B, H, W), dtype=torch.int32, device=img.device)
    bit = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy == 0 and dx == 0:
                continue
            nb = padded[:, 1 + dy:1 + dy + H, 1 + dx:1 + dx + W]
            code |= (nb < img).to(torch.int32) << bit
            bit += 1
    return code


spec = kcheck.Spec(
    name="hx26_census_transform",
    kernel=census_transform,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", name="img")],
    dims={"B": kcheck.Dim(nominal=2, max=3, real=()), "H": kcheck.Dim(nominal=40), "W": kcheck.Dim(nominal=72)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
)

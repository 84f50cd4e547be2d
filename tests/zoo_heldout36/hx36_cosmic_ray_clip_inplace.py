"""Astrophysics: in-place cosmic-ray rejection on a CCD frame. A pixel brighter than the mean of its four
neighbours (replicated at the borders) by more than THRESH is replaced by that mean; other pixels are kept. The
launcher snapshots the frame, the kernel reads the snapshot and writes the frame in [BLOCK_H, BLOCK_W] tiles, so
every pixel is judged against the original neighbours."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"

THRESH = 2.5


@triton.jit
def clip_kernel(src_ptr, img_ptr, H, W, s_sh, s_sw, s_ih, s_iw, THRESH: tl.constexpr, BLOCK_H: tl.constexpr,
                BLOCK_W: tl.constexpr):
    pid_h = tl.program_id(0).to(tl.int64)
    pid_w = tl.program_id(1).to(tl.int64)
    y = pid_h * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    x = pid_w * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (y < H)[:, None] & (x < W)[None, :]
    ym = tl.maximum(y - 1, 0)[:, None]
    yp = tl.minimum(y + 1, H - 1)[:, None]
    xm = tl.maximum(x - 1, 0)[None, :]
    xp = tl.minimum(x + 1, W - 1)[None, :]
    yc = y[:, None]
    xc = x[None, :]
    c = tl.load(src_ptr + yc * s_sh + xc * s_sw, mask=mask, other=0.0).to(tl.float32)
    n = tl.load(src_ptr + ym * s_sh + xc * s_sw, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(src_ptr + yp * s_sh + xc * s_sw, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(src_ptr + yc * s_sh + xm * s_sw, mask=mask, other=0.0).to(tl.float32)
    e = tl.load(src_ptr + yc * s_sh + xp * s_sw, mask=mask, other=0.0).to(tl.float32)
    mean4 = (n + s + w + e) * 0.25
    out = tl.where(c - mean4 > THRESH, mean4, c)
    tl.store(img_ptr + yc * s_ih + xc * s_iw, out.to(img_ptr.dtype.element_ty), mask=mask)


def cosmic_ray_clip_(img: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 32) -> torch.Tensor:
    H, W = img.shape
    if H == 0 or W == 0:
        return img
    src = img
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    clip_kernel[grid](src, img, H, W, src.stride(0), src.stride(1), img.stride(0), img.stride(1), THRESH=THRESH,
                      BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return img


def reference(img: torch.Tensor) -> torch.Tensor:
    p = torch.nn.functional.pad(img[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    mean4 = (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]) * 0.25
    return torch.where(img - mean4 > THRESH, mean4, img)


spec = kcheck.Spec(
    name="hx36_cosmic_ray_clip_inplace",
    kernel=cosmic_ray_clip_,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="frame", mutated=True)],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
)

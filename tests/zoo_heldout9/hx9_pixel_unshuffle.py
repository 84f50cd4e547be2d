"""Pixel unshuffle (space-to-depth, torch.nn.functional.pixel_unshuffle with factor 2) of a [C, H, W] feature map to
[4C, H/2, W/2]. A 3-D grid of (channel, block of input rows, block of input columns): each program reads one
contiguous input tile and scatters it to the four output planes."""

import torch
import triton
import triton.language as tl

import kcheck

R = 2


@triton.jit
def unshuffle_kernel(x_ptr, out_ptr, C, H, W, stride_xc, stride_xh, stride_xw,
                     R: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    c = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H)
    w = tl.program_id(2).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = (h < H)[:, None] & (w < W)[None, :]
    v = tl.load(x_ptr + c * stride_xc + h[:, None] * stride_xh + w[None, :] * stride_xw, mask=mask)
    Ho = H // R
    Wo = W // R
    co = c * (R * R) + (h % R)[:, None] * R + (w % R)[None, :]
    ho = (h // R)[:, None]
    wo = (w // R)[None, :]
    tl.store(out_ptr + co * (Ho * Wo) + ho * Ho + wo, v, mask=mask)


def pixel_unshuffle(x: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 64) -> torch.Tensor:
    C, H, W = x.shape
    out = torch.empty((C * R * R, H // R, W // R), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    grid = (C, triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    unshuffle_kernel[grid](x, out, C, H, W, x.stride(0), x.stride(1), x.stride(2), R=R, BLOCK_H=BLOCK_H,
                           BLOCK_W=BLOCK_W)
    return out


spec = kcheck.Spec(
    name="hx9_pixel_unshuffle",
    kernel=pixel_unshuffle,
    reference=lambda x: torch.nn.functional.pixel_unshuffle(x.unsqueeze(0), R).squeeze(0),
    inputs=[kcheck.Tensor("C", "H", "W")],
    dims={"C": kcheck.Dim(nominal=8), "H": kcheck.Dim(nominal=64, multiple_of=2),
          "W": kcheck.Dim(nominal=64, multiple_of=2)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 4, "BLOCK_W": 32}],
)

BUG_CLASS = 'index-transposition'  # the planted class (from the README's table), for benchmarks/zoo.py

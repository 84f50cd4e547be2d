"""Pixel shuffle (depth-to-space) with upscale factor 2, as torch.nn.functional.pixel_shuffle:
out[b, c, 2h + i, 2w + j] = x[b, 4c + 2i + j, h, w]. One lane per output element: the flat output index is split
into (b, c, oh, ow), and the input element is read through the input's strides."""

import torch
import triton
import triton.language as tl

import kcheck

R = 2


@triton.jit
def pixel_shuffle_kernel(x_ptr, out_ptr, total, C_OUT, H, W, stride_b, stride_c, stride_h, stride_w,
                         R: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < total
    OW = W * R
    ow = offs % OW
    t = offs // OW
    oh = t % OW
    t = t // OW
    c = t % C_OUT
    b = t // C_OUT
    h = oh // R
    i = oh % R
    w = ow // R
    j = ow % R
    c_in = c * (R * R) + i * R + j
    x = tl.load(x_ptr + b * stride_b + c_in * stride_c + h * stride_h + w * stride_w, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def pixel_shuffle(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    B, C, H, W = x.shape
    c_out = C // (R * R)
    out = torch.empty((B, c_out, H * R, W * R), dtype=x.dtype, device=x.device)
    total = out.numel()
    if total:
        pixel_shuffle_kernel[(triton.cdiv(total, BLOCK),)](
            x, out, total, c_out, H, W, x.stride(0), x.stride(1), x.stride(2), x.stride(3), R=R, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx6_pixel_shuffle",
    kernel=pixel_shuffle,
    reference=lambda x: torch.nn.functional.pixel_shuffle(x, R),
    inputs=[kcheck.Tensor("B", "C", "H", "W")],
    dims={"B": kcheck.Dim(nominal=2), "C": kcheck.Dim(nominal=16, multiple_of=R * R),
          "H": kcheck.Dim(nominal=32), "W": kcheck.Dim(nominal=32)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "index-transposition"

"""Nearest-neighbour upsampling by 2 on NCHW, torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest"):
out[b, c, oh, ow] = x[b, c, oh // 2, ow // 2]. One lane per output element; strides honoured on the input, the
output contiguous."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def upsample_kernel(x_ptr, out_ptr, total, C, H, W, stride_b, stride_c, stride_h, stride_w,
                    SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < total
    OW = W * SCALE
    OH = H * SCALE
    ow = offs % OW
    t = offs // OW
    oh = t % OH
    t = t // OH
    c = t % C
    b = t // C
    src = x_ptr + b * stride_b + c * stride_c + (oh // SCALE) * stride_h + (ow // SCALE) * stride_w
    tl.store(out_ptr + offs, tl.load(src, mask=mask), mask=mask)


def upsample_nearest2d(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    B, C, H, W = x.shape
    out = torch.empty((B, C, 2 * H, 2 * W), dtype=x.dtype, device=x.device)
    total = out.numel()
    if total:
        upsample_kernel[(triton.cdiv(total, BLOCK),)](x, out, total, C, H, W, *x.stride(), SCALE=2, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx6_upsample_nearest2d_ok",
    kernel=upsample_nearest2d,
    reference=lambda x: torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest"),
    inputs=[kcheck.Tensor("B", "C", "H", "W")],
    dims={"B": kcheck.Dim(nominal=2), "C": kcheck.Dim(nominal=8), "H": kcheck.Dim(nominal=32, min=1),
          "W": kcheck.Dim(nominal=48, min=1)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = None

"""Layout change of an image batch from NCHW to NHWC (channels-last): out[b, h, w, c] = x[b, c, h, w].

Programs tile (BLOCK_P pixels, BLOCK_C channels) of one image: the pixels are a flat index p over H*W, decoded to
(h, w) to read the input through its own strides, and written as a contiguous run of channels per pixel, so that
the stores coalesce. int64 offsets; the output is contiguous NHWC in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def nchw_to_nhwc_kernel(x_ptr, out_ptr, C, H, W, stride_xb, stride_xc, stride_xh, stride_xw,
                        BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    b = tl.program_id(1).to(tl.int64)
    c = tl.program_id(2).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    HW = H * W
    h = p // H
    w = p % H
    mask = (p < HW)[:, None] & (c < C)[None, :]
    src = x_ptr + b * stride_xb + c[None, :] * stride_xc + h[:, None] * stride_xh + w[:, None] * stride_xw
    vals = tl.load(src, mask=mask, other=0.0)
    dst = out_ptr + (b * HW + p)[:, None] * C + c[None, :]
    tl.store(dst, vals, mask=mask)


def nchw_to_nhwc(x: torch.Tensor, BLOCK_P: int = 64, BLOCK_C: int = 32) -> torch.Tensor:
    B, C, H, W = x.shape
    out = torch.empty((B, H, W, C), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    grid = (triton.cdiv(H * W, BLOCK_P), B, triton.cdiv(C, BLOCK_C))
    nchw_to_nhwc_kernel[grid](x, out, C, H, W, x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                              BLOCK_P=BLOCK_P, BLOCK_C=BLOCK_C)
    return out


spec = kcheck.Spec(
    name="hx5_nchw_to_nhwc",
    kernel=nchw_to_nhwc,
    reference=lambda x: x.permute(0, 2, 3, 1).contiguous(),
    inputs=[kcheck.Tensor("B", "C", "H", "W")],
    # grid axes 1 and 2 (images, channel blocks) hold at most 65535: the pixels grow in the past-2**31 case
    dims={"B": kcheck.Dim(nominal=2, large=False), "C": kcheck.Dim(nominal=64, large=False),
          "H": kcheck.Dim(nominal=16), "W": kcheck.Dim(nominal=16)},
    configs=[{"BLOCK_P": 64, "BLOCK_C": 32}, {"BLOCK_P": 16, "BLOCK_C": 8}],
)

BUG_CLASS = "index-transposition"

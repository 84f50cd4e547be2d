"""RGB to YCbCr colour conversion (JPEG / ITU-R BT.601 full range), the first step of a JPEG-style codec or of a
luma-only super-resolution model, for float images in [0, 1]:

    Y  =       0.299    R + 0.587    G + 0.114    B
    Cb = 0.5 - 0.168736 R - 0.331264 G + 0.5      B
    Cr = 0.5 + 0.5      R - 0.418688 G - 0.081312 B

x is one decoded image [3, H, W] with any strides (a crop of a larger canvas); the output is a fresh contiguous
[3, H, W]. A flat 1-D grid walks the H * W pixels, BLOCK per program, each lane reading its three channels.
Computed in fp32, stored in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"


@triton.jit
def rgb_to_ycbcr_kernel(x_ptr, out_ptr, HW, W, stride_c, stride_h, stride_w, BLOCK: tl.constexpr):
    hw = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = hw < HW
    src = x_ptr + (hw // W) * stride_h + (hw % W) * stride_w
    r = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(src + stride_c, mask=mask, other=0.0).to(tl.float32)
    bl = tl.load(src + 2 * stride_c, mask=mask, other=0.0).to(tl.float32)
    y = 0.299 * r + 0.587 * g + 0.144 * bl
    cb = 0.5 - 0.168736 * r - 0.331264 * g + 0.5 * bl
    cr = 0.5 + 0.5 * r - 0.418688 * g - 0.081312 * bl
    dst = out_ptr + hw
    ty = out_ptr.dtype.element_ty
    tl.store(dst, y.to(ty), mask=mask)
    tl.store(dst + HW, cb.to(ty), mask=mask)
    tl.store(dst + 2 * HW, cr.to(ty), mask=mask)


def rgb_to_ycbcr(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    _, H, W = x.shape
    out = torch.empty((3, H, W), dtype=x.dtype, device=x.device)
    if H * W == 0:
        return out
    rgb_to_ycbcr_kernel[(triton.cdiv(H * W, BLOCK),)](x, out, H * W, W, *x.stride(), BLOCK=BLOCK)
    return out


_M = [[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]]


def reference(x: torch.Tensor) -> torch.Tensor:
    m = torch.tensor(_M, dtype=x.dtype, device=x.device)
    offset = torch.tensor([0.0, 0.5, 0.5], dtype=x.dtype, device=x.device)
    return torch.einsum("kc,chw->khw", m, x) + offset[:, None, None]


spec = kcheck.Spec(
    name="hx14_rgb_to_ycbcr",
    kernel=rgb_to_ycbcr,
    reference=reference,
    inputs=[kcheck.Tensor(3, "H", "W", name="image")],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

"""im2col for a 3x3 convolution, stride 1, zero padding 1: x (C, H, W) -> cols (C*9, H*W), the layout F.unfold
returns, so the convolution becomes one GEMM. One program per (unfolded row, block of output pixels)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def im2col3x3_kernel(x_ptr, out_ptr, H, W, stride_c, stride_h, stride_w, BLOCK: tl.constexpr):
    row = tl.program_id(0)  # c * 9 + kh * 3 + kw
    pid = tl.program_id(1).to(tl.int64)
    c = row // 9
    kh = (row % 9) // 3
    kw = row % 3
    HW = H * W
    p = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    oh = p // H
    ow = p % H
    ih = oh + kh - 1
    iw = ow + kw - 1
    inside = (p < HW) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    v = tl.load(x_ptr + c.to(tl.int64) * stride_c + ih * stride_h + iw * stride_w, mask=inside, other=0.0)
    tl.store(out_ptr + row.to(tl.int64) * HW + p, v, mask=p < HW)


def im2col3x3(x, BLOCK=256):
    C, H, W = x.shape
    out = torch.empty((C * 9, H * W), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    grid = (C * 9, triton.cdiv(H * W, BLOCK))
    im2col3x3_kernel[grid](x, out, H, W, x.stride(0), x.stride(1), x.stride(2), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx2_im2col",
    kernel=im2col3x3,
    reference=lambda x: torch.nn.functional.unfold(x[None], kernel_size=3, padding=1)[0],
    inputs=[kcheck.Tensor("C", "H", "W")],
    dims={"C": kcheck.Dim(nominal=4, max=8, real=()), "H": kcheck.Dim(nominal=16, real=(56,)),
          "W": kcheck.Dim(nominal=24, real=(56,))},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

BUG_CLASS = "index-transposition"

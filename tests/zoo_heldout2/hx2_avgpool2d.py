"""2x2 average pooling, stride 2 (floor mode) over (channels, H, W) feature maps: out (C, H//2, W//2).
One program per (channel, block of output pixels); the four taps of each window are always inside the map."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def avgpool2x2_kernel(x_ptr, out_ptr, OH, OW, stride_c, stride_h, stride_w, BLOCK: tl.constexpr):
    c = tl.program_id(0).to(tl.int64)
    pid = tl.program_id(1).to(tl.int64)
    p = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    valid = p < OH * OW
    oh = p // OW
    ow = p % OW
    base = x_ptr + c * stride_c + (2 * oh) * stride_h + (2 * ow) * stride_w
    a = tl.load(base, mask=valid, other=0.0).to(tl.float32)
    b = tl.load(base + stride_w, mask=valid, other=0.0).to(tl.float32)
    d = tl.load(base + stride_h, mask=valid, other=0.0).to(tl.float32)
    e = tl.load(base + stride_h + stride_w, mask=valid, other=0.0).to(tl.float32)
    y = (a + b + d + e) * 0.25
    tl.store(out_ptr + c * OH * OW + p, y.to(out_ptr.dtype.element_ty))


def avgpool2x2(x, BLOCK=256):
    C, H, W = x.shape
    OH, OW = H // 2, W // 2
    out = torch.empty((C, OH, OW), dtype=x.dtype, device=x.device)
    if out.numel():
        grid = (C, triton.cdiv(OH * OW, BLOCK))
        avgpool2x2_kernel[grid](x, out, OH, OW, x.stride(0), x.stride(1), x.stride(2), BLOCK=BLOCK)
    return out


def reference(x):
    C, H, W = x.shape
    OH, OW = H // 2, W // 2
    return x[:, : 2 * OH, : 2 * OW].reshape(C, OH, 2, OW, 2).mean(dim=(2, 4))


spec = kcheck.Spec(
    name="hx2_avgpool2d",
    kernel=avgpool2x2,
    reference=reference,
    inputs=[kcheck.Tensor("C", "H", "W")],
    dims={"C": kcheck.Dim(nominal=4, max=8, real=()), "H": kcheck.Dim(nominal=32, real=(56,)),
          "W": kcheck.Dim(nominal=48, real=(56,))},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

BUG_CLASS = "edge-guard"

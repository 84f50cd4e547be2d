"""2x2 average pooling with stride 2 over NCHW images: out[b, c, i, j] = mean of x[b, c, 2i:2i+2, 2j:2j+2].

An odd last row or column is dropped (floor mode, as nn.AvgPool2d(2) does). One program per (b, c) plane and block
of output rows; the four taps are read with the input's own strides and summed in fp32; output contiguous, in the
input dtype; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def avgpool2x2_kernel(x_ptr, out_ptr, C, OH, OW, stride_xb, stride_xc, stride_xh, stride_xw,
                      BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    pid_h = tl.program_id(1).to(tl.int64)
    b = plane // C
    c = plane % C
    oh = pid_h * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    ow = tl.arange(0, BLOCK_W).to(tl.int64)
    base = x_ptr + b * stride_xb + c * stride_xc
    for w0 in range(0, OW, BLOCK_W):
        cols = w0 + ow
        mask = (oh < OH)[:, None] & (cols < OW)[None, :]
        top = base + (2 * oh)[:, None] * stride_xh + (2 * cols)[None, :] * stride_xw
        acc = tl.load(top, mask=mask, other=0.0).to(tl.float32)
        acc += tl.load(top + stride_xw, mask=mask, other=0.0).to(tl.float32)
        acc += tl.load(top + stride_xh, mask=mask, other=0.0).to(tl.float32)
        acc += tl.load(top + stride_xh + stride_xw, mask=mask, other=0.0).to(tl.float32)
        o = out_ptr + plane * OH * OW + oh[:, None] * OW + cols[None, :]
        tl.store(o, (acc * 0.25).to(out_ptr.dtype.element_ty), mask=mask)


def avgpool2x2(x: torch.Tensor, BLOCK_H: int = 8, BLOCK_W: int = 64) -> torch.Tensor:
    B, C, H, W = x.shape
    OH, OW = H // 2, W // 2
    out = torch.empty((B, C, OH, OW), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    block_w = min(BLOCK_W, triton.next_power_of_2(OW))
    grid = (B * C, triton.cdiv(OH, BLOCK_H))
    avgpool2x2_kernel[grid](x, out, C, OH, OW, x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                            BLOCK_H=BLOCK_H, BLOCK_W=block_w)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    B, C, H, W = x.shape
    OH, OW = H // 2, W // 2
    v = x[:, :, : 2 * OH, : 2 * OW].reshape(B, C, OH, 2, OW, 2)
    return v.mean(dim=(3, 5))


spec = kcheck.Spec(
    name="hx5_avgpool2d",
    kernel=avgpool2x2,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "H", "W")],
    # grid axis 1 holds the H / 2 / BLOCK_H row blocks (at most 65535): H stays out of the past-2**31 case
    dims={"B": kcheck.Dim(nominal=2), "C": kcheck.Dim(nominal=16), "H": kcheck.Dim(nominal=32, large=False),
          "W": kcheck.Dim(nominal=32)},
    configs=[{"BLOCK_H": 8, "BLOCK_W": 64}, {"BLOCK_H": 4, "BLOCK_W": 16}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = None

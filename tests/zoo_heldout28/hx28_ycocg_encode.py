"""RGB to YCoCg colour transform (the lossless-friendly luma/chroma basis used by texture compressors and video
codecs):

    Y  =  R/4 + G/2 + B/4
    Co =  R/2       - B/2
    Cg = -R/4 + G/2 - B/4

Pixels are [P, 3] rows of RGB. Each program handles BLOCK_P pixels, reading the three channels through the
pixel and channel strides the launcher passes; fp32 arithmetic, int64 offsets; the output is [P, 3] (Y, Co, Cg).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def ycocg_kernel(rgb_ptr, out_ptr, P, s_ip, s_ic, s_op, s_oc, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    mask = p < P
    r = tl.load(rgb_ptr + p * s_ip, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(rgb_ptr + p * s_ip + s_ic, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(rgb_ptr + p * s_ip + 2 * s_ic, mask=mask, other=0.0).to(tl.float32)
    y = 0.25 * r + 0.5 * g + 0.25 * b
    co = 0.5 * r - 0.5 * b
    cg = -0.25 * r + 0.5 * g - 0.25 * b
    ty = out_ptr.dtype.element_ty
    tl.store(out_ptr + p * s_op, y.to(ty), mask=mask)
    tl.store(out_ptr + p * s_op + s_oc, co.to(ty), mask=mask)
    tl.store(out_ptr + p * s_op + 2 * s_oc, cg.to(ty), mask=mask)


def ycocg_encode(rgb: torch.Tensor, BLOCK_P: int = 512) -> torch.Tensor:
    P = rgb.shape[0]
    out = torch.empty((P, 3), dtype=rgb.dtype, device=rgb.device)
    if P:
        ycocg_kernel[(triton.cdiv(P, BLOCK_P),)](rgb, out, P, 3, 1, out.stride(0),
                                                 out.stride(1), BLOCK_P=BLOCK_P)
    return out


def reference(rgb: torch.Tensor) -> torch.Tensor:
    r, g, b = rgb.unbind(-1)
    return torch.stack((0.25 * r + 0.5 * g + 0.25 * b, 0.5 * r - 0.5 * b, -0.25 * r + 0.5 * g - 0.25 * b), dim=-1)


spec = kcheck.Spec(
    name="ycocg_encode",
    kernel=ycocg_encode,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb")],
    dims={"P": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK_P": 512}, {"BLOCK_P": 64}],
    properties=[kcheck.props.linear()],
)

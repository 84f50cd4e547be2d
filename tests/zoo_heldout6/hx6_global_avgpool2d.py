"""Global average pooling over the spatial dimensions of an NCHW tensor: y[b, c] = mean over (h, w) of
x[b, c, h, w], i.e. adaptive_avg_pool2d(x, 1) flattened. One program per (b, c) plane walks the H*W positions in
BLOCK-wide chunks (strides honoured on every dimension); the result is returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gap_kernel(x_ptr, out_ptr, C, H, W, stride_b, stride_c, stride_h, stride_w, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    b = pid // C
    c = pid % C
    base = x_ptr + b * stride_b + c * stride_c
    HW = H * W
    acc = tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty)
    for start in range(0, HW, BLOCK):
        idx = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = idx < HW
        h = idx // W
        w = idx % W
        acc += tl.load(base + h * stride_h + w * stride_w, mask=mask, other=0.0)
    mean = tl.sum(acc.to(tl.float32), axis=0) / HW
    tl.store(out_ptr + pid, mean.to(out_ptr.dtype.element_ty))


def global_avgpool2d(x: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    B, C, H, W = x.shape
    out = torch.empty((B, C), dtype=x.dtype, device=x.device)
    if B * C == 0:
        return out
    if H * W == 0:
        return out.fill_(float("nan"))
    gap_kernel[(B * C,)](x, out, C, H, W, x.stride(0), x.stride(1), x.stride(2), x.stride(3), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx6_global_avgpool2d",
    kernel=global_avgpool2d,
    reference=lambda x: x.mean(dim=(2, 3)),
    inputs=[kcheck.Tensor("B", "C", "H", "W")],
    dims={"B": kcheck.Dim(nominal=4), "C": kcheck.Dim(nominal=32), "H": kcheck.Dim(nominal=32),
          "W": kcheck.Dim(nominal=32)},
    reduce=["H", "W"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "low-precision-accumulation"

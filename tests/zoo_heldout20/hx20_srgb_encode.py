"""sRGB transfer function (encode): linear light -> gamma-encoded sRGB, elementwise.

    y = 12.92 * x                       for x <= 0.0031308
    y = 1.055 * x ** (1 / 2.4) - 0.055  otherwise

Computed in fp32 (the power through exp/log), stored in the input dtype; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

THRESHOLD = 0.0031308


@triton.jit
def srgb_encode_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs).to(tl.float32)
    safe = tl.where(x > 0.0031308, x, 1.0)
    curve = 1.055 * tl.exp(tl.log(safe) * (1.0 / 2.4)) - 0.055
    y = tl.where(x > 0.0031308, curve, 12.92 * x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def srgb_encode(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        srgb_encode_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    curve = 1.055 * x.clamp(min=THRESHOLD).pow(1.0 / 2.4) - 0.055
    return torch.where(x > THRESHOLD, curve, 12.92 * x)


spec = kcheck.Spec(
    name="srgb_encode",
    kernel=srgb_encode,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "edge-guard"

"""In-place leaky ReLU: x <- where(x >= 0, x, slope * x), as torch.nn.functional.leaky_relu_(x, slope).

The launcher takes the tensor's contiguous form, runs a 1-D grid of BLOCK-wide programs over its flat elements
(int64 offsets, fp32 math) and returns the tensor it was given.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def leaky_kernel(x_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.where(x < 0.0, x * slope, x)
    tl.store(x_ptr + offs, y.to(x_ptr.dtype.element_ty), mask=mask)


def leaky_relu_(x: torch.Tensor, negative_slope: float = 0.01, BLOCK: int = 1024) -> torch.Tensor:
    flat = x.contiguous()
    n = flat.numel()
    if n:
        leaky_kernel[(triton.cdiv(n, BLOCK),)](flat, n, negative_slope, BLOCK=BLOCK)
    return x


spec = kcheck.Spec(
    name="hx10_leaky_relu_inplace",
    kernel=leaky_relu_,
    reference=lambda x, negative_slope=0.01: torch.nn.functional.leaky_relu(x, negative_slope),
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    params={"negative_slope": [0.01, 0.2]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "no-op"

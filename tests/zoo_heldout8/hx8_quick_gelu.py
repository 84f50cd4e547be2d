"""QuickGELU, the sigmoid approximation of GELU used by CLIP: out = x * sigmoid(1.702 * x), elementwise over a
contiguous flattening of the input, fp32 arithmetic, stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def quick_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x / (1.0 + tl.exp(-1.5957691216057308 * x))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def quick_gelu(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    xc = x.contiguous()
    out = torch.empty_like(xc)
    n = xc.numel()
    if n:
        quick_gelu_kernel[(triton.cdiv(n, BLOCK),)](xc, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx8_quick_gelu",
    kernel=quick_gelu,
    reference=lambda x: x * torch.sigmoid(1.702 * x),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    properties=[kcheck.props.zero_in_zero_out()],
)

BUG_CLASS = "wrong-constant"

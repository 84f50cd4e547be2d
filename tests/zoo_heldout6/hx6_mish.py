"""Mish activation, y = x * tanh(softplus(x)), elementwise over a tensor of any shape, computed in fp32 and
returned in the input dtype. softplus is taken in its stable form max(x, 0) + log(1 + exp(-|x|)), and
tanh(s) for s >= 0 as (1 - exp(-2s)) / (1 + exp(-2s)), so no exp overflows."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mish_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs).to(tl.float32)
    sp = tl.maximum(x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x)))
    t = tl.exp(-2.0 * sp)
    y = x * ((1.0 - t) / (1.0 + t))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def mish(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        mish_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx6_mish",
    kernel=mish,
    reference=torch.nn.functional.mish,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    properties=[kcheck.props.zero_in_zero_out()],
)

BUG_CLASS = "edge-guard"

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n, C, L, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ch = offs % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    v = x + b
    y = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def bias_gelu_ncl(x, bias, BLOCK=1024):
    _, C, L = x.shape
    x, bias = x.contiguous(), bias.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        bias_gelu_kernel[(triton.cdiv(n, BLOCK),)](x, bias, out, n, C, L, BLOCK=BLOCK)
    return out


def reference(x, bias):
    v = x + bias[None, :, None]
    return 0.5 * v * (1.0 + torch.erf(v / math.sqrt(2.0)))


spec = kcheck.Spec(
    name="hx12_conv_bias_gelu_ncl",
    kernel=bias_gelu_ncl,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L"), kcheck.Tensor("C", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=2, max=4), "C": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=128)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

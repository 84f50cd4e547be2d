"""Bias add fused with squared ReLU (Primer's activation): y = relu(x + bias)^2 on [M, N] activations, bias per
column. A flat 1-D kernel over the elements of a contiguous buffer; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bias_relu2_kernel(x_ptr, b_ptr, y_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % N, mask=mask, other=0.0).to(tl.float32)
    v = x + b
    r = tl.where(v < 0.0, 0.0, v)
    tl.store(y_ptr + offs, (r * r).to(y_ptr.dtype.element_ty), mask=mask)


def bias_relu2(x: torch.Tensor, bias: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    flat = x.view(-1)
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    n = flat.numel()
    if n:
        bias_relu2_kernel[(triton.cdiv(n, BLOCK),)](flat, bias.contiguous(), y, n, N, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.relu(x + bias).square()


BUG_CLASS = "kernel-raises"

spec = kcheck.Spec(
    name="hx13_bias_relu2",
    kernel=bias_relu2,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="bias", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 512}],
)

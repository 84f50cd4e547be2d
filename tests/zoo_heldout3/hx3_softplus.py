"""Softplus with PyTorch's beta and threshold: y = log(1 + exp(beta * x)) / beta, and y = x where beta * x is
above the threshold (where the two agree to fp32 precision). Elementwise over a flattened view, written in the
stable form max(z, 0) + log(1 + exp(-|z|)) so that exp never overflows."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, beta, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = x * beta
    soft = (tl.maximum(z, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(z)))) / beta
    y = tl.where(z > threshold, x, soft)
    tl.store(x_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def softplus(x: torch.Tensor, beta: float = 1.0, threshold: float = 20.0, BLOCK: int = 1024) -> torch.Tensor:
    x_flat = x.reshape(-1)
    y = torch.empty_like(x_flat)
    n = x_flat.numel()
    if n:
        softplus_kernel[(triton.cdiv(n, BLOCK),)](x_flat, y, n, beta, threshold, BLOCK=BLOCK)
    return y.view(x.shape)


spec = kcheck.Spec(
    name="hx3_softplus",
    kernel=softplus,
    reference=lambda x, beta, threshold: torch.nn.functional.softplus(x, beta=beta, threshold=threshold),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Scalar(2.0), kcheck.Scalar(20.0)],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "no-op"

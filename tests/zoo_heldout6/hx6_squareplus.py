"""Squareplus activation, y = (x + sqrt(x^2 + b)) / 2 with b = 4 (a smooth ReLU), elementwise in fp32 over the
flattened tensor. For x < 0 the equal form b / (2 (sqrt(x^2 + b) - x)) is used, which does not cancel."""

import torch
import triton
import triton.language as tl

import kcheck

B = 4.0


@triton.jit
def squareplus_kernel(x_ptr, out_ptr, n, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.sqrt(x * x + b)
    y = tl.where(x >= 0, 0.5 * (x + r), 0.5 * b / (r - x))
    y = tl.where(x != x, x, y)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def squareplus(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    flat = x.view(-1)
    out = torch.empty_like(flat)
    n = flat.numel()
    if n:
        squareplus_kernel[(triton.cdiv(n, BLOCK),)](flat, out, n, B, BLOCK=BLOCK)
    return out.view(x.shape)


def reference(x: torch.Tensor) -> torch.Tensor:
    r = torch.sqrt(x * x + B)
    return torch.where(x >= 0, 0.5 * (x + r), 0.5 * B / (r - x))


spec = kcheck.Spec(
    name="hx6_squareplus",
    kernel=squareplus,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "kernel-raises"

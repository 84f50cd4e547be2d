"""Softsign activation, y = x / (1 + |x|), elementwise over the flattened tensor. One 1-D block per program, int64
offsets, fp32 math, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softsign_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x / (1.0 + tl.abs(x))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def softsign(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        softsign_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx9_softsign_ok",
    kernel=softsign,
    reference=torch.nn.functional.softsign,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = None  # the planted class (from the README's table), for benchmarks/zoo.py

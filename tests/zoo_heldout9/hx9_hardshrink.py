"""Hard shrinkage (torch.nn.Hardshrink, sparse coding): y = x where |x| > lambda, else 0. Flattened, one 1-D block
of BLOCK elements per program, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

LAMBD = 0.5


@triton.jit
def hardshrink_kernel(x_ptr, out_ptr, n, lambd, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    keep = (x > lambd) | (x < -lambd) | (x != x)
    tl.store(out_ptr + offs, tl.where(keep, x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def hardshrink(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        hardshrink_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, LAMBD, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx9_hardshrink",
    kernel=hardshrink,
    reference=lambda x: torch.nn.functional.hardshrink(x, LAMBD),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = 'int32-overflow'  # the planted class (from the README's table), for benchmarks/zoo.py

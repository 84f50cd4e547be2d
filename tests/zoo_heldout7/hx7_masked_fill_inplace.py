"""In-place masked fill, x.masked_fill_(mask, value): every element of x where the boolean mask is True is
set to value (e.g. blanking padded positions of attention logits before a softmax). The kernel walks the
tensor flat, BLOCK elements per program, reading the mask as bytes; it returns x."""

import torch
import triton
import triton.language as tl

import kcheck

FILL = -1e4


@triton.jit
def masked_fill_kernel(x_ptr, mask_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    m = tl.load(mask_ptr + offs, mask=in_bounds, other=0).to(tl.int1)
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0.0)
    y = tl.where(m, value, x.to(tl.float32))
    tl.store(x_ptr + offs, y.to(x_ptr.dtype.element_ty), mask=in_bounds)


def masked_fill_(x, mask, BLOCK=1024):
    n = x.numel()
    if n == 0:
        return x
    work = x.contiguous()
    m = mask.contiguous().view(torch.uint8)
    masked_fill_kernel[(triton.cdiv(n, BLOCK),)](work, m, n, FILL, BLOCK=BLOCK)
    return x


def reference(x, mask):
    return x.masked_fill(mask, FILL)


spec = kcheck.Spec(
    name="hx7_masked_fill_inplace",
    kernel=masked_fill_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x", mutated=True),
            kcheck.Tensor("M", "N", dtype=torch.bool, density=0.3, name="mask")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "no-op"

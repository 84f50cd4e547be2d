"""Unmasked tail load: a vector add whose loads have no mask; the last program reads past the end of x and y."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # BUG: no mask
    y = tl.load(y_ptr + offs)  # BUG: no mask
    tl.store(out_ptr + offs, x + y, mask=offs < n)


def add(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, out, x.numel(), BLOCK=BLOCK)
    return out

"""Off-by-one mask: ``offs <= n`` lets lane n through, one element past the end of every tensor."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs <= n
    x = tl.load(x_ptr + offs, mask=mask)  # BUG: mask is <=
    tl.store(out_ptr + offs, 2 * x, mask=mask)  # BUG: mask is <=


def scale(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK=BLOCK)
    return out

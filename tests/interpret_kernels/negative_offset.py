"""A negative offset: a backward difference out[i] = x[i] - x[i-1] that reads x[-1] in program 0, lane 0."""

import torch
import triton
import triton.language as tl


@triton.jit
def diff_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    prev = tl.load(x_ptr + offs - 1, mask=mask)  # BUG: offs - 1 is -1 at offs == 0
    tl.store(out_ptr + offs, x - prev, mask=mask)


def diff(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty_like(x)
    diff_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK=BLOCK)
    return out

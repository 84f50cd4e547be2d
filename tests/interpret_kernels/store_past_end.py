"""A store past the end: the load is masked, the store is not; the last program writes past the end of out."""

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, x)  # BUG: no mask


def copy(x: torch.Tensor, out: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    copy_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK=BLOCK)
    return out

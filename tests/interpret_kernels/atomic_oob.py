"""An out-of-range atomic: a histogram of values in [0, 1] whose bin (x * NBINS) is NBINS for x == 1.0."""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = (x * NBINS).to(tl.int32)
    tl.atomic_add(hist_ptr + b, 1, mask=mask)  # BUG: b == NBINS when x == 1.0


def histogram(x: torch.Tensor, nbins: int = 16, BLOCK: int = 128) -> torch.Tensor:
    hist = torch.zeros(nbins, dtype=torch.int32)
    histogram_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, hist, x.numel(), NBINS=nbins, BLOCK=BLOCK)
    return hist

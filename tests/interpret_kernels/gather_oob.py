"""An out-of-range gather index read from data: out[i] = src[idx[i]], with no check of idx against len(src)."""

import torch
import triton
import triton.language as tl


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    v = tl.load(src_ptr + idx, mask=mask)  # BUG: idx is not checked against len(src)
    tl.store(out_ptr + offs, v, mask=mask)


def gather(src: torch.Tensor, idx: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty(idx.shape, dtype=src.dtype)
    gather_kernel[(triton.cdiv(idx.numel(), BLOCK),)](src, idx, out, idx.numel(), BLOCK=BLOCK)
    return out

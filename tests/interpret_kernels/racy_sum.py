"""A non-atomic accumulation across programs: every program reads the global total, adds its block's sum and
writes it back. Right in the interpreter (programs run one after another); on a GPU it loses updates. The correct
version (``atomic_total``) uses tl.atomic_add."""

import torch
import triton
import triton.language as tl


@triton.jit
def racy_total_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    cur = tl.load(out_ptr)  # BUG: read of a total other programs write
    tl.store(out_ptr, cur + v)  # BUG: non-atomic read-modify-write


@triton.jit
def atomic_total_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    tl.atomic_add(out_ptr, v)


def racy_total(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.zeros(1, dtype=torch.float32)
    racy_total_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK=BLOCK)
    return out


def atomic_total(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.zeros(1, dtype=torch.float32)
    atomic_total_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK=BLOCK)
    return out

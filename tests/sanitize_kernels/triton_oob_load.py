"""Planted bug (memcheck): a Triton vector add whose loads have no mask. The store is masked, so the output is
right; only memcheck, with PyTorch's caching allocator off, sees the reads past the end when N is not a multiple of
BLOCK. The user's code never turns the allocator off: kcheck's sanitizer pass does."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # BUG: no mask
    y = tl.load(y_ptr + offs)  # BUG: no mask
    tl.store(out_ptr + offs, x + y, mask=offs < n)


def add(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty_like(x)
    if x.numel():
        add_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, out, x.numel(), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(name="triton_oob_load", kernel=add, reference=torch.add,
                   inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=1024)},
                   dtypes=["fp32"])

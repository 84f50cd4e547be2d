"""An intended (benign) write-write race: every program stores 1 to the same ``done`` flag after its work."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_and_flag_kernel(x_ptr, out_ptr, done_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 3 * tl.load(x_ptr + offs, mask=mask), mask=mask)
    tl.store(done_ptr, 1)  # BENIGN: every program writes the same value


def scale_and_flag(x: torch.Tensor, BLOCK: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    out = torch.empty_like(x)
    done = torch.zeros(1, dtype=torch.int32)
    scale_and_flag_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, done, x.numel(), BLOCK=BLOCK)
    return out, done

"""Bug class: tail tile dropped (grid ``n // BLOCK`` instead of ``triton.cdiv(n, BLOCK)``).

An elementwise SiLU (x * sigmoid(x)) whose launcher rounds the number of programs down: the last n % BLOCK elements
belong to a program that is never launched, so they are never written (and for n < BLOCK nothing is). At any n that
is a multiple of BLOCK (the power-of-two sizes a casual test uses) the grid is exact and the output right. Where the
tail is skipped, the output holds whatever the allocation held: often zeros, or the previous call's right answer
when the caching allocator hands back the same block, so even a ragged test may pass by luck. kcheck poisons the
output (torch.empty inside the launcher comes filled with a marker NaN) and reports the tail unwritten.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = x / (1.0 + tl.exp(-x))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def silu(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    grid = n // BLOCK  # BUG: should be triton.cdiv(n, BLOCK) (the last, partial block is never launched)
    if grid:
        silu_kernel[(grid,)](x, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="tail_tile_dropped",
    kernel=silu,
    reference=torch.nn.functional.silu,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "tail-tile-dropped"

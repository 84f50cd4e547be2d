"""Inclusive prefix sum of a 1-D tensor in a single launch: each program scans its BLOCK in fp32 with tl.cumsum,
publishes its block total, then adds the totals of the blocks before it (a chained scan, no second launch)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def chained_scan_kernel(x_ptr, out_ptr, totals_ptr, n, BLOCK: tl.constexpr, NUM_BLOCKS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    local = tl.cumsum(x, axis=0)
    tl.store(totals_ptr + pid, tl.sum(x, axis=0))
    prev = tl.arange(0, NUM_BLOCKS)
    before = tl.load(totals_ptr + prev, mask=prev < pid, other=0.0)
    carry = tl.sum(before, axis=0)
    tl.store(out_ptr + offs, (local + carry).to(out_ptr.dtype.element_ty), mask=mask)


def chained_cumsum(x, BLOCK=256):
    n = x.numel()
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    if n == 0:
        return out
    x = x.contiguous()
    grid = triton.cdiv(n, BLOCK)
    totals = torch.empty(grid, dtype=torch.float32, device=x.device)
    chained_scan_kernel[(grid,)](x, out, totals, n, BLOCK=BLOCK, NUM_BLOCKS=triton.next_power_of_2(grid))
    return out


spec = kcheck.Spec(
    name="hx4_chained_cumsum",
    kernel=chained_cumsum,
    reference=lambda x: torch.cumsum(x, 0),
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096, max=65536, real=(37, 2880))},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 1024}],
)

BUG_CLASS = "race"

"""Kernels whose programs talk to each other through global memory.

``running_totals`` (buggy): program i reads the running total carry[i-1] that program i-1 writes, so it is right
only when programs run in order; a GPU gives no such order. ``tickets`` (correct) records the order programs ran
in through an atomic counter. ``last_block_sum`` (correct) writes partial sums, and the program that takes the last
ticket of an atomic counter adds them up: the atomics order the partials' writes before their reads.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def running_totals_kernel(x_ptr, carry_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    prev = tl.load(carry_ptr + pid - 1, mask=pid > 0, other=0.0)  # BUG: program pid - 1 may not have written it
    tl.store(carry_ptr + pid, prev + s)


@triton.jit
def tickets_kernel(counter_ptr, order_ptr):
    ticket = tl.atomic_add(counter_ptr, 1)
    tl.store(order_ptr + tl.program_id(0), ticket)


@triton.jit
def last_block_sum_kernel(x_ptr, partial_ptr, count_ptr, out_ptr, n, NPROG, BLOCK: tl.constexpr,
                          NP2: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(partial_ptr + pid, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))
    done = tl.atomic_add(count_ptr, 1)  # acq_rel: orders this program's partial before the last one's reads
    if done == NPROG - 1:
        i = tl.arange(0, NP2)
        tl.store(out_ptr, tl.sum(tl.load(partial_ptr + i, mask=i < NPROG, other=0.0), axis=0))


def running_totals(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    grid = triton.cdiv(x.numel(), BLOCK)
    carry = torch.zeros(grid, dtype=torch.float32)
    running_totals_kernel[(grid,)](x, carry, x.numel(), BLOCK=BLOCK)
    return carry


def tickets(programs: int) -> torch.Tensor:
    counter = torch.zeros(1, dtype=torch.int32)
    order = torch.full((programs,), -1, dtype=torch.int32)
    tickets_kernel[(programs,)](counter, order)
    return order


def last_block_sum(x: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    grid = triton.cdiv(x.numel(), BLOCK)
    partial = torch.zeros(grid, dtype=torch.float32)
    count = torch.zeros(1, dtype=torch.int32)
    out = torch.zeros(1, dtype=torch.float32)
    last_block_sum_kernel[(grid,)](x, partial, count, out, x.numel(), grid, BLOCK=BLOCK,
                                   NP2=triton.next_power_of_2(grid))
    return out

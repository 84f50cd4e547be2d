"""Cases for kcheck.lint's triton-atomic-readback rule (tests/test_lint.py): every line marked EXPECT must be reported
with that kind and severity, and no other line. Parsed, never run."""

import triton
import triton.language as tl


@triton.jit
def normalize_fused(w_ptr, out_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    w = tl.load(w_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(w, axis=0))
    total = tl.load(total_ptr)  # EXPECT: triton-atomic-readback warning
    tl.store(out_ptr + offs, w / total, mask=offs < n)


@triton.jit
def row_absmax_fused(x_ptr, y_ptr, amax_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    slot = amax_ptr + row
    tl.atomic_max(slot, tl.max(tl.abs(x), axis=0))
    tl.store(y_ptr + row * N + cols, x / tl.load(slot), mask=cols < N)  # EXPECT: triton-atomic-readback warning


# ---- negatives ----


@triton.jit
def sum_only(w_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(total_ptr, tl.sum(tl.load(w_ptr + offs, mask=offs < n, other=0.0), axis=0))


@triton.jit
def scale_after(w_ptr, out_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    total = tl.load(total_ptr)  # a second kernel: every add of the first has landed
    tl.store(out_ptr + offs, tl.load(w_ptr + offs, mask=offs < n) / total, mask=offs < n)


@triton.jit
def grid_barrier(count_ptr, nprog):
    tl.atomic_add(count_ptr, 1)
    while tl.load(count_ptr, volatile=True) < nprog:
        pass


@triton.jit
def look_back(flag_ptr, agg_ptr, x):
    pid = tl.program_id(0)
    tl.atomic_xchg(agg_ptr + pid, x)
    tl.atomic_xchg(flag_ptr + pid, 1)
    prev = tl.load(agg_ptr + pid - 1, mask=pid > 0, other=0.0)
    tl.store(agg_ptr + pid, prev + x)

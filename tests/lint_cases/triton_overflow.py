"""Cases for kcheck.lint's triton-pid-stride-int32 rule (tests/test_lint.py): every line marked EXPECT must be reported
with that kind and severity, and no other line. Parsed, never run."""

import triton
import triton.language as tl


@triton.jit
def row_stride_int32(x_ptr, out_ptr, stride_row, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols)  # EXPECT: triton-pid-stride-int32 error
    tl.store(out_ptr + row * stride_row + cols, x, mask=cols < n_cols)  # EXPECT: triton-pid-stride-int32 error


@triton.jit
def derived_program_id(x_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_n
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    ptrs = x_ptr + rows[:, None] * stride_m + cols[None, :]  # EXPECT: triton-pid-stride-int32 error
    tl.store(ptrs, 0.0, mask=(rows < M)[:, None] & (cols < N)[None, :])


@triton.jit
def block_offset_int32(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # EXPECT: triton-pid-stride-int32 warning
    tl.store(x_ptr + offs, 0.0, mask=offs < n)


# ---- negatives ----


@triton.jit
def cast_program_id(x_ptr, stride_row, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    offs = row * BLOCK + cols
    tl.store(x_ptr + row * stride_row + cols, 0.0, mask=cols < n)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


@triton.jit
def cast_operand(x_ptr, stride_row, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tl.store(x_ptr + pid * stride_row.to(tl.int64) + cols, 0.0, mask=cols < n)
    tl.store(x_ptr + tl.cast(pid, tl.int64) * stride_row + cols, 0.0, mask=cols < n)
    base = pid.to(tl.int64) * BLOCK
    tl.store(x_ptr + base + cols, 0.0, mask=base + cols < n)


@triton.jit
def not_a_pointer(x_ptr, out_ptr, scale, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    seed = pid * scale
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * seed, mask=offs < n)


@triton.jit
def small_group(lock_ptr, N, GROUP: tl.constexpr):
    lock_id = tl.program_id(0) % GROUP
    tl.atomic_xchg(lock_ptr + lock_id * N, 1)
    tl.store(lock_ptr + tl.program_id(0), 0)
    tl.store(lock_ptr + tl.program_id(1) * 2, 0)


# ---- two runtime sizes multiplied in int32 (triton-size-product-int32) ----


@triton.jit
def flat_mask_size_product(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < M * N  # EXPECT: triton-size-product-int32 warning
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def early_exit_size_product(x_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    total = n_rows * n_cols  # EXPECT: triton-size-product-int32 warning
    if start >= total:
        return
    lanes = tl.arange(0, BLOCK)
    tl.store(x_ptr + start + lanes, 0.0, mask=lanes < BLOCK)


@triton.jit
def flat_mask_size_product_cast(x_ptr, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    tl.store(x_ptr + offs, 0.0, mask=offs < M.to(tl.int64) * N)


@triton.jit
def size_product_unused(x_ptr, M, N, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    scale = eps * M  # a float: reaches no mask nor pointer
    tl.store(x_ptr + offs, scale, mask=offs < N)

"""Cases for kcheck.lint's triton-unmasked-access rule (tests/test_lint.py): every line marked EXPECT must be
reported with that kind and severity, and no other line. Offsets are int64 throughout, so that no other rule fires.
Parsed, never run."""

import triton
import triton.language as tl


@triton.jit
def unmasked_store(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, x)  # EXPECT: triton-unmasked-access error


@triton.jit
def unmasked_loop_tail(x_ptr, out_ptr, M, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols)  # EXPECT: triton-unmasked-access error
    tl.store(out_ptr + row, tl.sum(acc, axis=0), mask=row < M)


@triton.jit
def partial_mask(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    ptrs = x_ptr + rows[:, None] * stride_m + cols[None, :]
    x = tl.load(ptrs, mask=(rows < M)[:, None], other=0.0)  # EXPECT: triton-unmasked-access error
    tl.store(out_ptr + rows[:, None] * stride_m + cols[None, :], x, mask=(rows < M)[:, None] & (cols < N)[None, :])


@triton.jit
def no_mask_anywhere(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # EXPECT: triton-unmasked-access warning


@triton.jit
def block_pointer_rows_only(x_ptr, out_ptr, M, N, stride_m, stride_n, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    src = tl.make_block_ptr(x_ptr, (M, N), (stride_m, stride_n), (pm * BM, pn * BN), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(out_ptr, (M, N), (stride_m, stride_n), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tile = tl.load(src, boundary_check=(0,))  # EXPECT: triton-unmasked-access error
    tl.store(dst, tile, boundary_check=(0, 1))


# ---- negatives ----


@triton.jit
def masked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0.0), mask=mask)
    tl.atomic_add(out_ptr + offs, 1.0, mask=mask)


@triton.jit
def scalar_per_program(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    s = tl.load(x_ptr + pid)
    cols = tl.arange(0, BLOCK)
    w = tl.load(x_ptr + cols)
    tl.store(out_ptr + pid, s + tl.sum(w, axis=0))


@triton.jit
def even_fast_path(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def wrapped_rows(a_ptr, M, K, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = (tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_k = tl.arange(0, BLOCK_K)
    ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        tl.store(ptrs, a + 1, mask=offs_k[None, :] < K - k * BLOCK_K)
        ptrs += BLOCK_K


@triton.jit
def row_slab(x_ptr, stride_b, n, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    tl.store(x_ptr + b * stride_b + cols, 0.0, mask=cols < n)
    tl.store(x_ptr + b * stride_b, 1.0)

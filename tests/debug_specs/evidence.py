"""Small kernels, one symptom each, for tests/test_diagnosis_evidence.py: the patterns where a debugger that guesses
from one case goes wrong (an out-of-bounds store read as a missing edge guard, racy sizes that happen to be
non-multiples of the block, a rounding-level smallest case beside inf outputs, ...). Each carries its bug in the form
a square randn test at the nominal shape misses.

Kept out of test files: kcheck's pytest plugin collects module-level Specs there as tests.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import os
from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

# -- a wrong stride: right on every square shape, wrong (and storing out of bounds) on every other one -------------


@triton.jit
def _scale_copy_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    # BUG: the output's row stride is N; M is the row count
    tl.store(out_ptr + rows[:, None] * M + cols[None, :], x * 2.0, mask=mask)


def _scale_copy(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    if x.numel():
        _scale_copy_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x, out, M, N, BLOCK_M=16, BLOCK_N=16)
    return out


stride_square_only = kcheck.Spec(
    name="stride_square_only", kernel=_scale_copy, reference=lambda x: x * 2, inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=32, real=())}, dtypes=["fp32"])


# -- a per-channel bias read with the row index: fails only when the two dims differ ----------------------------


@triton.jit
def _add_bias_kernel(x_ptr, b_ptr, out_ptr, numel, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % M, mask=mask)  # BUG: the channel of flat element i is i % N
    tl.store(out_ptr + offs, x + b, mask=mask)


def _add_bias(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    x, b = x.contiguous(), b.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    if x.numel():
        _add_bias_kernel[(triton.cdiv(x.numel(), 256),)](x, b, out, x.numel(), M, N, BLOCK=256)
    return out


bias_wrong_axis = kcheck.Spec(
    name="bias_wrong_axis", kernel=_add_bias, reference=lambda x, b: x + b,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=32, real=())}, dtypes=["fp32"])


# -- a split row sum whose programs add into the output with a plain load and store -----------------------------
# Programs run one after the other in the interpreter, so the values come out right; on a GPU they overlap and
# partial sums are lost. The interpreter's race check sees the write-write and read-write races between programs.
# The block (1024) is larger than the nominal row (512): the racy sizes the sweep meets are past 1024 and mostly
# not multiples of it.


@triton.jit
def _split_sum_kernel(x_ptr, out_ptr, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    acc = tl.load(out_ptr + row)  # BUG: tl.atomic_add(out_ptr + row, tl.sum(x)) is meant
    tl.store(out_ptr + row, acc + tl.sum(x))


def _split_sum(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.zeros(M, dtype=x.dtype, device=x.device)
    if x.numel():
        _split_sum_kernel[(M, triton.cdiv(N, 1024))](x, out, M, N, BLOCK_N=1024)
    return out


racy_split_sum = kcheck.Spec(
    name="racy_split_sum", kernel=_split_sum, reference=lambda x: x.sum(-1), inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, real=(), max=64), "N": kcheck.Dim(nominal=512, real=(1500,))}, dtypes=["fp32"],
    reduce=["N"], patterns=("randn", "zeros", "ones", "large"), layouts=("contiguous",), seeds=1)


# -- a store without its column mask: the ragged block spills into the next row ---------------------------------
# Program (r, j) writes columns j * 64 .. j * 64 + 63 of row r; past N they are the next row's first elements (zeros,
# as the masked load gives them), which program (r + 1, 0) writes again after it in the interpreter's order. So the
# values come out right, the programs race on those addresses, and the last row's spill lands past the tensor. Only
# ragged N does it: a missing edge guard whose race findings look like a missing atomic.


@triton.jit
def _spill_kernel(x_ptr, out_ptr, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row * N + cols, x * 2.0)  # BUG: no mask=cols < N


def _spill(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    if x.numel():
        _spill_kernel[(M, triton.cdiv(N, 64))](x, out, M, N, BLOCK_N=64)
    return out


store_spill = kcheck.Spec(
    name="store_spill", kernel=_spill, reference=lambda x: x * 2, inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, real=(), max=64), "N": kcheck.Dim(nominal=128, real=())}, dtypes=["fp32"],
    layouts=("contiguous",), seeds=1)


# -- a prefix sum with no carry between programs: right up to one block, wrong past it --------------------------


@triton.jit
def _cumsum_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # BUG: the running total of the programs before this one is never added
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=mask)


def _cumsum(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        _cumsum_kernel[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), BLOCK=128)
    return out


cumsum_no_carry = kcheck.Spec(
    name="cumsum_no_carry", kernel=_cumsum, reference=lambda x: x.cumsum(0), inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=128, real=())}, dtypes=["fp32"], reduce=["N"])


# -- a log-sum-exp without the max subtracted, checked at a tolerance tighter than fp32 rounding ----------------
# The large pattern overflows exp to inf; the tight tolerance also fails a few small cases by an ulp or two.


@triton.jit
def _lse_kernel(x_ptr, out_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    # BUG: no max subtraction: exp overflows past 88
    tl.store(out_ptr + row, tl.log(tl.sum(tl.exp(x), axis=0)))


def _lse(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if x.numel():
        _lse_kernel[(M,)](x, out, N, BLOCK_N=triton.next_power_of_2(N))
    return out


lse_no_max = kcheck.Spec(
    name="lse_no_max", kernel=_lse, reference=lambda x: torch.logsumexp(x, -1), inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=(), max=64), "N": kcheck.Dim(nominal=64, real=(), min=1, max=1024)},
    dtypes=["fp32"], reduce=["N"], rtol=1e-8, atol=1e-8, layouts=("contiguous",), seeds=1)


# -- the log of a softmax's denominator, computed as the difference of two large terms ---------------------------


def _lse_minus_max(x: torch.Tensor) -> torch.Tensor:
    # BUG: logsumexp(x) and max(x) are each ~1e4 on data of a large mean; their difference (~2) keeps few of fp32's
    # digits. log(sum(exp(x - max(x)))) is the same value without the cancellation.
    return torch.logsumexp(x, -1) - x.amax(-1)


lse_minus_max = kcheck.Spec(
    name="lse_minus_max", kernel=_lse_minus_max,
    reference=lambda x: torch.log(torch.exp(x - x.amax(-1, keepdim=True)).sum(-1)), inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=64, real=(), min=1)}, dtypes=["fp32"],
    reduce=["N"])


# -- a kernel that crashes its process (a wild read) -------------------------------------------------------------


def _wild_read(x: torch.Tensor) -> torch.Tensor:
    if x.numel() > 1:
        ctypes.string_at(8)  # BUG: a read of address 8: the process dies with SIGSEGV
    return x * 2


crashes = kcheck.Spec(name="crashes", kernel=_wild_read, reference=lambda x: x * 2, inputs=[kcheck.Tensor("M", "N")],
                      dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=8, real=())},
                      dtypes=["fp32"])


# -- every seventh element off, at every size: no rule's hallmark is there --------------------------------------------


def _sparse_wrong(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    y.view(-1)[3::7] += 0.5  # BUG: every seventh element from the fourth on is off
    return y


unexplained = kcheck.Spec(
    name="unexplained", kernel=_sparse_wrong, reference=lambda x: x * 2,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=16, real=())}, dtypes=["fp32"],
    patterns=("randn", "ones"), layouts=("contiguous",), seeds=1)


# -- a coefficient off: a softmax with a temperature of 1/ln 2 where 1 belongs -----------------------------------


def _softmax_wrong_constant(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x * 0.6931471805599453, dim=-1)  # BUG: ln 2 where 1 / ln 2 cancels the exp2 scale


wrong_constant = kcheck.Spec(
    name="wrong_constant", kernel=_softmax_wrong_constant, reference=lambda x: torch.softmax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=32, real=())}, dtypes=["fp32"],
    reduce=["N"], seeds=1)


# -- one output channel's coefficient off: three activations stacked, the second a SiLU with the quick-GELU slope ---


def _activations_wrong_slope(x: torch.Tensor) -> torch.Tensor:
    # BUG: SiLU is x * sigmoid(x); 1.702 is the quick-GELU approximation's slope
    return torch.stack([torch.relu(x), x * torch.sigmoid(1.702 * x), torch.tanh(x)])


channel_constant = kcheck.Spec(
    name="channel_constant", kernel=_activations_wrong_slope,
    reference=lambda x: torch.stack([torch.relu(x), torch.nn.functional.silu(x), torch.tanh(x)]),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=32, real=())}, dtypes=["fp32"], seeds=1)


# -- a rolling standard deviation from E[x^2] - E[x]^2: wrong on large-mean data, and on randn data only at the rare
#    window whose values are nearly equal -------------------------------------------------------------------------


def _rolling_std_one_pass(x: torch.Tensor) -> torch.Tensor:
    w = x.float().unfold(-1, 3, 1)
    mean = w.mean(dim=-1)
    # BUG: one pass; the spread is lost where it is small next to the mean
    return (w * w).mean(dim=-1).sub(mean * mean).clamp_min(0).sqrt().to(x.dtype)


rolling_std_one_pass = kcheck.Spec(
    name="rolling_std_one_pass", kernel=_rolling_std_one_pass,
    reference=lambda x: x.unfold(-1, 3, 1).std(dim=-1, unbiased=False),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=64, min=3, real=())}, dtypes=["fp32"],
    seeds=3)


# -- rows addressed as row * N: the row stride assumed --------------------------------------------------------------


@triton.jit
def _row_scale_kernel(x_ptr, out_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)  # BUG: row * N, not row * x.stride(0)
    tl.store(out_ptr + row * N + cols, x * 3.0, mask=cols < N)


def _row_scale(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if x.numel():
        _row_scale_kernel[(M,)](x, out, N, BLOCK_N=triton.next_power_of_2(N))
    return out


stride_assumed = kcheck.Spec(
    name="stride_assumed", kernel=_row_scale, reference=lambda x: x * 3, inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, real=(), max=64), "N": kcheck.Dim(nominal=32, real=(), max=256)},
    dtypes=["fp32"], seeds=1)


# -- the last program sums every program's partial without waiting for them ---------------------------------------


@triton.jit
def _mean_last_kernel(x_ptr, part_ptr, out_ptr, N, NPROG, BLOCK: tl.constexpr, PBLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
    tl.store(part_ptr + pid, tl.sum(x, axis=0))
    if pid == NPROG - 1:  # BUG: nothing orders this read after the other programs' stores (no atomic ticket)
        p = tl.arange(0, PBLOCK)
        parts = tl.load(part_ptr + p, mask=p < NPROG, other=0.0)
        tl.store(out_ptr, tl.sum(parts, axis=0) / N)


def _mean_last(x: torch.Tensor) -> torch.Tensor:
    N = x.numel()
    out = torch.zeros(1, dtype=torch.float32, device=x.device)
    nprog = max(1, triton.cdiv(N, 128))
    part = torch.empty(nprog, dtype=torch.float32, device=x.device)
    _mean_last_kernel[(nprog,)](x, part, out, N, nprog, BLOCK=128, PBLOCK=triton.next_power_of_2(nprog))
    return out


last_program_race = kcheck.Spec(
    name="last_program_race", kernel=_mean_last, reference=lambda x: x.mean().reshape(1),
    inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=2048, real=(), min=1, max=16384)}, dtypes=["fp32"],
    reduce=["N"], layouts=("contiguous",), seeds=1)


# -- a grid of n // BLOCK programs: nothing written below one block, the tail left unwritten above ------------------


@triton.jit
def _halve_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr + offs, x * 0.5, mask=offs < N)


def _halve(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    grid = (x.numel() // 256,)  # BUG: rounds down
    if grid[0]:
        _halve_kernel[grid](x, out, x.numel(), BLOCK=256)
    return out


grid_rounds_down = kcheck.Spec(
    name="grid_rounds_down", kernel=_halve, reference=lambda x: x * 0.5, inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=100, real=(), max=8192)}, dtypes=["fp32"], layouts=("contiguous",), seeds=1)


# -- a one-pass variance that also turns NaN inputs into zeros -------------------------------------------------


def _var_one_pass(x: torch.Tensor) -> torch.Tensor:
    x = torch.nan_to_num(x.float())  # a NaN input gives a finite variance: the nonfinite pattern fails too
    return ((x * x).mean(-1) - x.mean(-1) ** 2).to(x.dtype)  # BUG: E[x^2] - E[x]^2 in fp32


variance_one_pass = kcheck.Spec(
    name="variance_one_pass", kernel=_var_one_pass, reference=lambda x: x.var(-1, unbiased=False),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=256, real=())}, dtypes=["fp32"],
    reduce=["N"], layouts=("contiguous",), seeds=1)


# -- a launcher that returns its (contiguous) input instead of the buffer the kernel wrote -------------------------


@triton.jit
def _lerp_kernel(a_ptr, b_ptr, out_ptr, n, w, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + offs, a + w * (b - a), mask=m)


def _lerp(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    a, b = a.contiguous(), b.contiguous()
    out = torch.empty_like(a)
    if a.numel():
        _lerp_kernel[(triton.cdiv(a.numel(), 256),)](a, b, out, a.numel(), 0.01, BLOCK=256)
    return a  # BUG: the input, not out (1% of the way to b: off by a small fraction everywhere)


returns_input = kcheck.Spec(
    name="returns_input", kernel=_lerp, reference=lambda a, b: a + 0.01 * (b - a),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"],
    layouts=("contiguous",), seeds=1)


# -- an update over several 1-D tensors of one length, one of its loads unmasked: an edge guard, not a wrong axis ---


@triton.jit
def _momentum_kernel(p_ptr, g_ptr, v_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    p = tl.load(p_ptr + offs, mask=m)
    g = tl.load(g_ptr + offs, mask=m)
    v = tl.load(v_ptr + offs)  # BUG: no mask: the last program reads past the end
    tl.store(out_ptr + offs, p - 0.1 * (0.9 * v + g), mask=m)


def _momentum(p: torch.Tensor, g: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(p)
    if p.numel():
        _momentum_kernel[(triton.cdiv(p.numel(), 128),)](p, g, v, out, p.numel(), BLOCK=128)
    return out


vectors_unmasked_load = kcheck.Spec(
    name="vectors_unmasked_load", kernel=_momentum, reference=lambda p, g, v: p - 0.1 * (0.9 * v + g),
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("N"), kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=512, real=(), max=4096)}, dtypes=["fp32"], layouts=("contiguous",), seeds=1)


# -- a window one element too wide: the mean of each row's last 8 elements takes a ninth ----------------------------


@triton.jit
def _tail_mean_kernel(x_ptr, out_ptr, N, stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    keep = (cols >= N - 8 - 1) & (cols < N)  # BUG: N - 8 - 1 (nine elements), N - 8 belongs
    x = tl.load(x_ptr + row * stride + cols, mask=keep, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0) / 8.0)


def _tail_mean(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M:
        _tail_mean_kernel[(M,)](x, out, N, x.stride(0), BLOCK_N=triton.next_power_of_2(N))
    return out


window_one_too_wide = kcheck.Spec(
    name="window_one_too_wide", kernel=_tail_mean, reference=lambda x: x[:, -8:].mean(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=64, real=()), "N": kcheck.Dim(nominal=32, min=9, max=256, real=())},
    dtypes=["fp32"], patterns=["randn", "zeros", "large"], layouts=("contiguous",), seeds=1)


# -- a scale and a shift per channel, both read with the column where the row belongs ------------------------------
# Wrong on square shapes too (the column index is not the row index), so no square-only pattern; each operand at
# ones alone leaves the other wrong: only both at once show the axis.


def _affine_flat(x: torch.Tensor, g: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    C, L = x.shape
    ch = torch.arange(x.numel(), device=x.device) % C  # BUG: the channel of flat element i is i // L
    return (x.reshape(-1) * g[ch] + b[ch]).reshape(C, L)


affine_wrong_axis = kcheck.Spec(
    name="affine_wrong_axis", kernel=_affine_flat, reference=lambda x, g, b: x * g[:, None] + b[:, None],
    inputs=[kcheck.Tensor("C", "L"), kcheck.Tensor("C"), kcheck.Tensor("C")],
    dims={"C": kcheck.Dim(nominal=32, real=()), "L": kcheck.Dim(nominal=32, real=())}, dtypes=["fp32"], seeds=1)


# -- a masked mean whose all-masked rows divide 0 by 0 --------------------------------------------------------------
# On randn data a row is all masked only when it is one or two elements long: the failures sit at the smallest
# sizes, and every longer ragged size passes (no edge pattern).


def _masked_mean(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    keep = (m > 0).to(x.dtype)
    return (x * keep).sum(-1) / keep.sum(-1)  # BUG: a row with nothing kept is 0 / 0


def _masked_mean_ref(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    keep = (m > 0).to(x.dtype)
    count = keep.sum(-1)
    return torch.where(count > 0, (x * keep).sum(-1) / count.clamp_min(1), torch.zeros_like(count))


masked_mean_zero_count = kcheck.Spec(
    name="masked_mean_zero_count", kernel=_masked_mean, reference=_masked_mean_ref,
    inputs=[kcheck.Tensor("B", "L"), kcheck.Tensor("B", "L")],
    dims={"B": kcheck.Dim(nominal=16, real=()), "L": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"],
    reduce=["L"], seeds=1)


# -- an RMSNorm whose eps is not the contract's ---------------------------------------------------------------------
# Right wherever mean(x**2) dwarfs both eps: randn rows of 16 and more elements. Wrong on rows of one or two
# elements (a small mean square by chance) and on small data: the same nominal case scaled down by 1e-3 is off by
# about 1.4x everywhere.


def _rmsnorm_eps(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-8) * w  # BUG: the contract's eps is 1e-6


rmsnorm_eps = kcheck.Spec(
    name="rmsnorm_eps", kernel=_rmsnorm_eps,
    reference=lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"],
    reduce=["N"], seeds=1)


# -- a launcher that raises on strided inputs, in every precision, and whose fp16 path is also wrong -------------
# The fp16 value failures alone look like "only the low precision fails"; the fp32 cases did not pass, they raised.


def _squareplus(x: torch.Tensor) -> torch.Tensor:
    flat = x.view(-1)  # BUG: a view of a non-contiguous input raises
    if x.dtype == torch.float16:
        y = flat * 0.5 + 1.0  # and the half path is a cruder formula
    else:
        y = 0.5 * (flat + torch.sqrt(flat * flat + 4.0))
    return y.view(x.shape)


squareplus_raises = kcheck.Spec(
    name="squareplus_raises", kernel=_squareplus, reference=lambda x: 0.5 * (x + torch.sqrt(x * x + 4.0)),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32", "fp16"],
    seeds=1)


# -- a coefficient off in an elementwise kernel with half-precision cases ---------------------------------------
# Every fp32 case is off by the same fraction at every size; the fp16/bf16 cases stay inside the table's tolerance
# but beyond the framework's own half-precision result: "beyond the baseline", with nothing accumulated at all.


@triton.jit
def _swish_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    y = x * tl.sigmoid(1.1 * x)  # BUG: beta 1.1 where the reference's SiLU has 1
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=offs < n)


def _swish(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        _swish_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
    return out


swish_wrong_beta = kcheck.Spec(
    name="swish_wrong_beta", kernel=_swish, reference=torch.nn.functional.silu, inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=64, real=())},
    dtypes=["fp32", "fp16", "bf16"], seeds=1)


# -- a 2-D operand broadcast along a dimension, read along the wrong one --------------------------------------
# out[b, m, n] = x[b, m, n] * g[b, n], where g (one gain per batch and column) is read at [b, m]: not 1-D, but a
# per-channel operand all the same (broadcast along M); with g all ones every index reads the same value.


@triton.jit
def _batch_gain_kernel(x_ptr, g_ptr, out_ptr, M, N, BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
    b = tl.program_id(0)
    m = tl.program_id(1)
    n = tl.arange(0, BLOCK_N)
    mask = n < N
    x = tl.load(x_ptr + (b * M + m) * N + n, mask=mask, other=0.0)
    if MASKED:
        g = tl.load(g_ptr + b * N + m, mask=m < N, other=0.0)  # BUG: g[b, m] where g[b, n] belongs
    else:
        g = tl.load(g_ptr + b * N + m % N)  # BUG: the row index where the column belongs (g[b, n])
    tl.store(out_ptr + (b * M + m) * N + n, x * g, mask=mask)


def _launch_batch_gain(x: torch.Tensor, g: torch.Tensor, masked: bool) -> torch.Tensor:
    x, g = x.contiguous(), g.contiguous()
    B, M, N = x.shape
    out = torch.empty_like(x)
    if out.numel():
        _batch_gain_kernel[(B, M)](x, g, out, M, N, BLOCK_N=triton.next_power_of_2(N), MASKED=masked)
    return out


def _batch_gain(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return _launch_batch_gain(x, g, False)


def _batch_gain_masked(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return _launch_batch_gain(x, g, True)


def _gain_spec(name: str, kernel: Any) -> kcheck.Spec:
    return kcheck.Spec(
        name=name, kernel=kernel, reference=lambda x, g: x * g[:, None, :],
        inputs=[kcheck.Tensor("B", "M", "N"), kcheck.Tensor("B", "N", name="gain")],
        dims={"B": kcheck.Dim(nominal=2, real=(), max=8), "M": kcheck.Dim(nominal=8, real=(), max=64),
              "N": kcheck.Dim(nominal=32, real=(), max=256)}, dtypes=["fp32"], seeds=1)


batch_gain_wrong_axis = _gain_spec("batch_gain_wrong_axis", _batch_gain)
# the same gain, masked where it is read: where M > N the rows past N read 0, so ones rescue only the cases where N
# is the longer dimension (which the deciding experiment picks)
batch_gain_masked = _gain_spec("batch_gain_masked", _batch_gain_masked)


# -- a permutation written in the layout of another -----------------------------------------------------------
# out = x.permute(2, 0, 1) ([N, B, M] from [B, M, N]), each value stored where the [B, N, M] layout puts it: a
# bijection onto the same buffer (nothing out of bounds, nothing unwritten), right only where B or N is 1. The
# misplaced outputs sit at their position with the first two indices swapped: not the last two, so not the
# transposed position the arange decoding names, yet every value is one the reference puts elsewhere.


@triton.jit
def _permute_kernel(x_ptr, out_ptr, B, M, N, BLOCK_M: tl.constexpr):
    b = tl.program_id(0)
    n = tl.program_id(1)
    m = tl.arange(0, BLOCK_M)
    mask = m < M
    v = tl.load(x_ptr + (b * M + m) * N + n, mask=mask)
    tl.store(out_ptr + (b * N + n) * M + m, v, mask=mask)  # BUG: the [B, N, M] offset; [N, B, M] is (n * B + b) * M


def _permute(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    B, M, N = x.shape
    out = torch.empty((N, B, M), dtype=x.dtype, device=x.device)
    if out.numel():
        _permute_kernel[(B, N)](x, out, B, M, N, BLOCK_M=triton.next_power_of_2(M))
    return out


permute_wrong_layout = kcheck.Spec(
    name="permute_wrong_layout", kernel=_permute, reference=lambda x: x.permute(2, 0, 1),
    inputs=[kcheck.Tensor("B", "M", "N")],
    dims={"B": kcheck.Dim(nominal=4, real=(), max=16), "M": kcheck.Dim(nominal=32, real=(), max=128),
          "N": kcheck.Dim(nominal=8, real=(), max=32)}, dtypes=["fp32"], seeds=1)


# The same wrong layout, whose launcher dies (as a wild read past a tensor kills a GPU process) wherever M is odd:
# the smallest failing case crashes and its arange probe crashes too; the cases that compute, wrongly, show where
# the values went.


def _permute_dies_at_odd_m(x: torch.Tensor) -> torch.Tensor:
    if x.shape[1] % 2:
        os.abort()
    return _permute(x)


permute_wrong_layout_crashing = kcheck.Spec(
    name="permute_wrong_layout_crashing", kernel=_permute_dies_at_odd_m, reference=lambda x: x.permute(2, 0, 1),
    inputs=[kcheck.Tensor("B", "M", "N")],
    dims={"B": kcheck.Dim(nominal=4, real=(), max=16), "M": kcheck.Dim(nominal=32, real=(), max=128),
          "N": kcheck.Dim(nominal=8, real=(), max=32)}, dtypes=["fp32"], seeds=1)


# -- an in-place row flip whose swap mask lets both programs of a pair swap it: a race, though the racing stores ---
# -- look like lost updates (two programs write one element) and it is right while one program covers the row ------


@triton.jit
def _flip_kernel(x_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lo = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    hi = N - 1 - lo
    mask = (lo < N) & (lo != hi)  # BUG: lo < hi; every pair is swapped twice, by the two programs of its ends
    a = tl.load(x_ptr + row * stride + lo, mask=mask)
    b = tl.load(x_ptr + row * stride + hi, mask=mask)
    tl.store(x_ptr + row * stride + lo, b, mask=mask)
    tl.store(x_ptr + row * stride + hi, a, mask=mask)


def _flip_inplace(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    if x.numel():
        _flip_kernel[(M, triton.cdiv(N, 64))](x, N, x.stride(0), BLOCK=64)
    return x


flip_inplace_race = kcheck.Spec(
    name="flip_inplace_race", kernel=_flip_inplace, reference=lambda x: torch.flip(x, dims=[-1]),
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=4, max=64, real=()), "N": kcheck.Dim(nominal=200, max=512, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- a row mean whose column mask is cols <= N: each row takes the first element of the next (the last row, the --
# -- element past the tensor, which a GPU reads from the same allocation and no checker sees) ----------------------


@triton.jit
def _row_mean_kernel(x_ptr, out_ptr, N, stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols <= N, other=0.0)  # BUG: cols < N
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / N)


def _row_mean(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M:
        _row_mean_kernel[(M,)](x, out, N, x.stride(0), BLOCK_N=64)
    return out


row_mean_one_past = kcheck.Spec(
    name="row_mean_one_past", kernel=_row_mean, reference=lambda x: x.mean(-1), inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, max=64, real=()), "N": kcheck.Dim(nominal=100, max=512, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1, reduce=["N"])


def _row_mean_stale(x: torch.Tensor) -> torch.Tensor:
    """The same kernel, with what lies past the tensor as a GPU's caching allocator may leave it: 1e20 of stale
    data. A contiguous input (the check's own cases) is copied to the front of such a buffer; a padded view (the
    debugger's padding probe) is passed as it is."""
    if x.numel() and x.stride() == (x.shape[1], 1):
        buf = torch.full((x.numel() + 256,), 1e20, dtype=x.dtype, device=x.device)
        buf[:x.numel()].copy_(x.reshape(-1))
        x = buf[:x.numel()].view(x.shape)
    return _row_mean(x)


row_mean_one_past_stale = kcheck.Spec(
    name="row_mean_one_past_stale", kernel=_row_mean_stale, reference=lambda x: x.mean(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, max=64, real=()), "N": kcheck.Dim(nominal=100, max=512, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1, reduce=["N"])


# -- a relative-position bias table stored [32 buckets, H heads] read with its strides swapped: wrong at every H, ---
# -- H == 32 included (the table is not symmetric), and out of bounds only where H > 32 -----------------------------


@triton.jit
def _relpos_kernel(s_ptr, t_ptr, out_ptr, Q, K, H, BLOCK_K: tl.constexpr):
    h = tl.program_id(0)
    q = tl.program_id(1)
    ks = tl.arange(0, BLOCK_K)
    mask = ks < K
    s = tl.load(s_ptr + (h * Q + q) * K + ks, mask=mask)
    bucket = tl.minimum(tl.maximum(ks - q, -16), 15) + 16
    bias = tl.load(t_ptr + bucket + h * 32, mask=mask)  # BUG: the table is [32, H]: bucket * H + h
    tl.store(out_ptr + (h * Q + q) * K + ks, s + bias, mask=mask)


def _relpos(scores: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    scores = scores.contiguous()
    table = table.contiguous()
    H, Q, K = scores.shape
    out = torch.empty_like(scores)
    if out.numel():
        _relpos_kernel[(H, Q)](scores, table, out, Q, K, H, BLOCK_K=triton.next_power_of_2(K))
    return out


def _relpos_ref(scores: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    _, Q, K = scores.shape
    bucket = (torch.arange(K)[None, :] - torch.arange(Q)[:, None]).clamp(-16, 15) + 16
    return scores + table[bucket.to(table.device)].permute(2, 0, 1)


relpos_table_transposed = kcheck.Spec(
    name="relpos_table_transposed", kernel=_relpos, reference=_relpos_ref,
    inputs=[kcheck.Tensor("H", "Q", "K", name="scores"), kcheck.Tensor(32, "H", name="table")],
    dims={"H": kcheck.Dim(nominal=4, max=64, real=()), "Q": kcheck.Dim(nominal=8, max=64, real=()),
          "K": kcheck.Dim(nominal=48, max=256, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- a row mean whose mask stops one short (cols < N - 1): the last element of every row is never read -----------
# -- (no access out of bounds, no edge pattern: wrong at every length, by a fraction, like a wrong constant) --------


@triton.jit
def _mean_short_kernel(x_ptr, out_ptr, N, stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < N - 1, other=0.0)  # BUG: cols < N
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / N)


def _mean_short(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M:
        _mean_short_kernel[(M,)](x, out, N, x.stride(0), BLOCK_N=64)
    return out


row_mean_one_short = kcheck.Spec(
    name="row_mean_one_short", kernel=_mean_short, reference=lambda x: x.mean(-1), inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, max=64, real=()), "N": kcheck.Dim(nominal=100, min=2, max=512, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1, reduce=["N"])


# -- a row sum whose loop stops at the last whole block: below one block nothing is read (the output is exactly ---
# -- zeros, like a kernel that never runs), above it the last partial block is skipped -------------------------------


@triton.jit
def _sum_whole_blocks_kernel(x_ptr, out_ptr, N, stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, (N // BLOCK_N) * BLOCK_N, BLOCK_N):  # BUG: range(0, N, BLOCK_N), with the mask
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + row * stride + cols)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def _sum_whole_blocks(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M:
        _sum_whole_blocks_kernel[(M,)](x, out, N, x.stride(0), BLOCK_N=32)
    return out


row_sum_tail_skipped = kcheck.Spec(
    name="row_sum_tail_skipped", kernel=_sum_whole_blocks, reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, max=64, real=()), "N": kcheck.Dim(nominal=100, max=512, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1, reduce=["N"])


# -- a tiled scale whose flat program id is split with the wrong tile count: tiles are covered twice or never ------
# -- (right wherever the two tile counts are equal) -------------------------------------------------------------------


@triton.jit
def _tile_scale_kernel(x_ptr, out_ptr, M, N, tiles_m, tiles_n, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    tm = pid // tiles_m  # BUG: pid // tiles_n
    tn = pid % tiles_m  # BUG: pid % tiles_n
    rows = tm * BM + tl.arange(0, BM)
    cols = tn * BN + tl.arange(0, BN)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], x * 3.0, mask=mask)


def _tile_scale(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    if x.numel():
        tm, tn = triton.cdiv(M, 16), triton.cdiv(N, 16)
        _tile_scale_kernel[(tm * tn,)](x, out, M, N, tm, tn, BM=16, BN=16)
    return out


tile_ids_swapped = kcheck.Spec(
    name="tile_ids_swapped", kernel=_tile_scale, reference=lambda x: x * 3.0, inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, max=256, real=()), "N": kcheck.Dim(nominal=32, max=256, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- an in-place SGD step on a grid of n // BLOCK programs: below one block nothing runs and the parameters come back
# -- as they went in; above, the tail keeps its old values (an in-place output holds no poison to show it) ----------


@triton.jit
def _sgd_kernel(p_ptr, g_ptr, n, lr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    tl.store(p_ptr + offs, p - lr * g, mask=mask)


def _sgd_step(p: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    grid = (p.numel() // 128,)  # BUG: rounds down
    if grid[0]:
        _sgd_kernel[grid](p, g, p.numel(), 0.1, BLOCK=128)
    return p


sgd_grid_rounds_down = kcheck.Spec(
    name="sgd_grid_rounds_down", kernel=_sgd_step, reference=lambda p, g: p - 0.1 * g,
    inputs=[kcheck.Tensor("N", mutated=True), kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=1000, real=(), max=8192)}, dtypes=["fp32"], patterns=["randn"],
    layouts=("contiguous",), seeds=1)


# -- an instance norm over L of [B, C, L] (correct): on arange inputs every row, and every column, normalizes to the
# -- same values, so its reference barely changes when the input is transposed ----------------------------------


def _instance_norm(x: torch.Tensor) -> torch.Tensor:
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(((x - mean) ** 2).mean(-1, keepdim=True) + 1e-5)


instance_norm_rows = kcheck.Spec(
    name="instance_norm_rows", kernel=_instance_norm, reference=_instance_norm, inputs=[kcheck.Tensor("B", "C", "L")],
    dims={"B": kcheck.Dim(nominal=2), "C": kcheck.Dim(nominal=8), "L": kcheck.Dim(nominal=8)}, dtypes=["fp32"],
    seeds=1)


# -- rows read at a stride of N whatever the tensor's own: a strided view's rows are padded with NaN by kcheck -----


def _rows_read_flat(x: torch.Tensor) -> torch.Tensor:
    return torch.as_strided(x, x.shape, (x.shape[-1], 1)) * 2  # BUG: x.stride(0) is not always N


rows_read_flat = kcheck.Spec(
    name="rows_read_flat", kernel=_rows_read_flat, reference=lambda x: x * 2, inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, max=256), "N": kcheck.Dim(nominal=32, max=256)}, dtypes=["fp32"], seeds=1)


# -- rows of a [M, 32] tensor read with a row mask one too wide: each program's last row one past the end, whole ----


@triton.jit
def _row_double_kernel(x_ptr, out_ptr, M, D: tl.constexpr, BLOCK_R: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, D)
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=(rows <= M)[:, None], other=0.0)  # BUG: rows < M
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], x * 2.0, mask=(rows < M)[:, None])


def _row_double(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.shape[0]:
        _row_double_kernel[(triton.cdiv(x.shape[0], 8),)](x, out, x.shape[0], D=32, BLOCK_R=8)
    return out


row_mask_one_too_wide = kcheck.Spec(
    name="row_mask_one_too_wide", kernel=_row_double, reference=lambda x: x * 2.0, inputs=[kcheck.Tensor("M", 32)],
    dims={"M": kcheck.Dim(nominal=64, max=512)}, dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",),
    seeds=1)


# -- a per-channel gain whose backward keeps the first row block's weight gradient and loses the others' -----------
# (on a GPU, a plain load + store of each block's partial sum into the shared gradient: runs differ)


class _GainLostRows(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, gamma)
        return x * gamma

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, gamma = ctx.saved_tensors
        return g * gamma, (g * x)[:8].sum(0)


gain_grad_lost_rows = kcheck.Spec(
    name="gain_grad_lost_rows", kernel=_GainLostRows.apply, reference=lambda x, gamma: x * gamma,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="gamma")],
    dims={"M": kcheck.Dim(nominal=64, max=256), "N": kcheck.Dim(nominal=32, max=128)}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), seeds=1, grad=True)


# -- a piecewise formula with one branch's constant wrong: wrong exactly where the input's values take that branch --


def _srgb_decode_wrong_exponent(x: torch.Tensor) -> torch.Tensor:
    c = x.clamp(0.0, 1.0)
    return torch.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.2)  # BUG: the standard's exponent is 2.4


def _srgb_decode(x: torch.Tensor) -> torch.Tensor:
    c = x.clamp(0.0, 1.0)
    return torch.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


srgb_wrong_exponent = kcheck.Spec(
    name="srgb_wrong_exponent", kernel=_srgb_decode_wrong_exponent, reference=_srgb_decode,
    inputs=[kcheck.Tensor(3, "H", "W")],
    dims={"H": kcheck.Dim(nominal=32, real=()), "W": kcheck.Dim(nominal=48, real=())}, dtypes=["fp32"], seeds=1)


def _huber_wrong_offset(x: torch.Tensor) -> torch.Tensor:
    a = x.abs()
    return torch.where(a < 1.5, 0.5 * x * x, 1.5 * (a - 0.7))  # BUG: the linear branch is delta * (|x| - delta / 2)


huber_wrong_offset = kcheck.Spec(
    name="huber_wrong_offset", kernel=_huber_wrong_offset,
    reference=lambda x: torch.nn.functional.huber_loss(x, torch.zeros_like(x), reduction="none", delta=1.5),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], seeds=1)


# -- a gate from a mean taken over the channels instead of the length: each channel's output moves with the others --


def _channel_gate_wrong_axis(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    s = x.mean(dim=1, keepdim=True)  # BUG: the squeeze is over the length (dim=2), per channel
    return x * torch.sigmoid(w[None, :, None] * s)


def _channel_gate(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(w[None, :, None] * x.mean(dim=2, keepdim=True))


channel_gate_wrong_axis = kcheck.Spec(
    name="channel_gate_wrong_axis", kernel=_channel_gate_wrong_axis, reference=_channel_gate,
    inputs=[kcheck.Tensor("B", "C", "L"), kcheck.Tensor("C")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=()), "C": kcheck.Dim(nominal=16, real=()),
          "L": kcheck.Dim(nominal=24, real=())},
    reduce=["L"], dtypes=["fp32"], seeds=1)


def gate_scaled(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return 1.1 * _channel_gate(x, w)  # a wrong constant: channels stay apart


# -- columns standardized in place, their means summed along the wrong axis of a square tile: a shift of a column
#    leaves its own standardized values alone, so only a bump that varies along the column shows it ---------------


def _standardize_columns_tile_axis(x: torch.Tensor, block: int = 16) -> torch.Tensor:
    m, n = x.shape
    mp, np_ = -(-m // block) * block, -(-n // block) * block
    xp = x.new_zeros(mp, np_)
    xp[:m, :n] = x
    acc = xp.view(mp // block, block, np_ // block, block).sum(0)  # [row lane, column tile, column lane]
    mean = (acc.sum(2) / m).t().reshape(np_)[:n]  # BUG: the column means sum the tile's row lanes: acc.sum(0)
    var = ((x - mean) ** 2).mean(0)
    x.copy_((x - mean) / torch.sqrt(var + 1e-5))
    return x


def _standardize_columns(x: torch.Tensor) -> torch.Tensor:
    mean = x.mean(0, keepdim=True)
    return (x - mean) / torch.sqrt(((x - mean) ** 2).mean(0, keepdim=True) + 1e-5)


standardize_columns_tile_axis = kcheck.Spec(
    name="standardize_columns_tile_axis", kernel=_standardize_columns_tile_axis, reference=_standardize_columns,
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=48, real=())},
    reduce=["M"], dtypes=["fp32"], seeds=1)


# -- weights divided by their total, in one kernel: each program adds its partial sum atomically, then reads the total
#    before the programs after it have added theirs (right with one block; past one block the early programs divide by
#    a partial total) ----------------------------------------------------------------------------------------------


@triton.jit
def _normalize_fused_kernel(w_ptr, out_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    w = tl.load(w_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(tl.abs(w), axis=0))
    total = tl.load(total_ptr)  # BUG: the total is whole only in a second kernel launched after this one
    tl.store(out_ptr + offs, tl.abs(w) / total, mask=offs < n)


def _normalize_fused(w: torch.Tensor) -> torch.Tensor:
    w = w.contiguous()
    out = torch.empty_like(w)
    total = torch.zeros(1, dtype=torch.float32, device=w.device)
    if w.numel():
        _normalize_fused_kernel[(triton.cdiv(w.numel(), 128),)](w, out, total, w.numel(), BLOCK=128)
    return out


normalize_readback = kcheck.Spec(
    name="normalize_readback", kernel=_normalize_fused, reference=lambda w: w.abs() / w.abs().sum(),
    inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=1000, real=(), min=1)}, dtypes=["fp32"],
    reduce=["N"], patterns=("randn", "ones"), layouts=("contiguous",), seeds=1)


# -- a per-item prior built by the Spec's own function (a Custom of declared shape [I]) read with the row index ------


def _prior(ctx: kcheck.CaseContext) -> torch.Tensor:
    counts = ctx.rand(ctx.dims["I"], dtype=torch.float32) + 0.05
    return (counts / counts.sum()).to(ctx.dtype)


def _prior_by_row(z: torch.Tensor, prior: torch.Tensor) -> torch.Tensor:
    rows = torch.arange(z.shape[0], device=z.device) % prior.shape[0]
    return z - torch.log(prior)[rows][:, None]  # BUG: the prior belongs to the item (column), not the row


prior_wrong_axis = kcheck.Spec(
    name="prior_wrong_axis", kernel=_prior_by_row, reference=lambda z, prior: z - torch.log(prior)[None, :],
    inputs=[kcheck.Tensor("B", "I"), kcheck.Custom(_prior, name="prior", dims=("I",))],
    dims={"B": kcheck.Dim(nominal=16, real=()), "I": kcheck.Dim(nominal=24, real=())}, dtypes=["fp32"], seeds=1)


# -- a max pool over the valid steps of padded sequences whose mask lets one step too many through (t <= length): the
#    extra step lies inside the tensor, and a max's gradient reaches only its largest element --------------------


def _lengths(ctx: kcheck.CaseContext) -> torch.Tensor:
    # half the steps valid: with 64 features the step past each length is the largest of some feature in nearly
    # every row
    return torch.full((ctx.dims["B"],), max(ctx.dims["T"] // 2, 1), dtype=torch.int64, device=ctx.device)


def _masked_max(x: torch.Tensor, lengths: torch.Tensor, one_more: bool) -> torch.Tensor:
    t = torch.arange(x.shape[1], device=x.device)[None, :]
    valid = (t <= lengths[:, None]) if one_more else (t < lengths[:, None])  # BUG where one_more: t < length
    return x.masked_fill(~valid[:, :, None], float("-inf")).amax(dim=1)


masked_max_one_past = kcheck.Spec(
    name="masked_max_one_past", kernel=lambda x, lengths: _masked_max(x, lengths, True),
    reference=lambda x, lengths: _masked_max(x, lengths, False),
    inputs=[kcheck.Tensor("B", "T", "D"), kcheck.Custom(_lengths, name="lengths", dims=("B",))],
    dims={"B": kcheck.Dim(nominal=6, real=()), "T": kcheck.Dim(nominal=20, min=4, real=()),
          "D": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], seeds=1)


# -- a per-channel gain whose backward adds the weight gradient into a buffer it never zeroed ------------------------


class _GainGradUninitialized(_GainLostRows):  # the same forward
    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, gamma = ctx.saved_tensors
        dgamma = torch.empty_like(gamma)  # BUG: torch.zeros_like: the sum below adds into what was there
        dgamma += (g * x).sum(0)
        return g * gamma, dgamma


gain_grad_uninitialized = kcheck.Spec(
    name="gain_grad_uninitialized", kernel=_GainGradUninitialized.apply, reference=lambda x, gamma: x * gamma,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="gamma")],
    dims={"M": kcheck.Dim(nominal=64, max=256), "N": kcheck.Dim(nominal=32, max=128)}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), seeds=1, grad=True)

# the same gain on all-zero data too: its gradient is NaN there, as a zero denominator's would be
gain_grad_uninitialized_zeros = dataclasses.replace(
    gain_grad_uninitialized, name="gain_grad_uninitialized_zeros", patterns=["randn", "zeros"])


# -- a trailing moving average whose window takes one element too many: right while the series is no longer than the
# -- window, wrong past it, wherever the window parameter puts that -------------------------------------------------


def _trailing_mean(x: torch.Tensor, window: int, wide: bool) -> torch.Tensor:
    t = x.shape[-1]
    i, j = torch.arange(t, device=x.device)[:, None], torch.arange(t, device=x.device)[None, :]
    lower = j >= i - window if wide else j > i - window  # BUG (wide): the window's first element is i - window + 1
    band = ((j <= i) & lower).to(x.dtype)
    return (x @ band.T) / band.sum(1)


trailing_mean_one_wide = kcheck.Spec(
    name="trailing_mean_one_wide", kernel=lambda x, window: _trailing_mean(x, window, True),
    reference=lambda x, window: _trailing_mean(x, window, False),
    inputs=[kcheck.Tensor("B", "T")], params={"window": [32, 8]},
    dims={"B": kcheck.Dim(nominal=4, real=()), "T": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], seeds=1)


# -- a row mean of |x - y| / (|x| + |y|) whose masked lanes load 0 and compute 0 / 0: NaN at every length that is
# -- not a multiple of the block, every access in bounds -------------------------------------------------------------


@triton.jit
def _row_rel_diff_kernel(x_ptr, y_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        c = start + cols
        x = tl.load(x_ptr + row * N + c, mask=c < N, other=0.0)
        y = tl.load(y_ptr + row * N + c, mask=c < N, other=0.0)
        acc += tl.abs(x - y) / (tl.abs(x) + tl.abs(y))  # BUG: the masked lanes give 0 / 0 (tl.where(c < N, ..., 0))
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / N)


def _row_rel_diff(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x, y = x.contiguous(), y.contiguous()
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M and N:
        _row_rel_diff_kernel[(M,)](x, y, out, N, BLOCK=32)
    return out


def _row_rel_diff_ref(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    den = x.abs() + y.abs()
    return ((x - y).abs() / torch.where(den == 0, torch.ones_like(den), den)).mean(-1)


row_rel_diff_masked_nan = kcheck.Spec(
    name="row_rel_diff_masked_nan", kernel=_row_rel_diff, reference=_row_rel_diff_ref,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=64, min=1, real=())}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), reduce=["N"], seeds=1)


# -- a row sum by blocks whose block size is declared as a mode, keeping only the last block's partial sum: the
# -- threshold is the mode's value, and it is a block's ---------------------------------------------------------------


def _row_sum_last_block(x: torch.Tensor, block: int) -> torch.Tensor:
    n = x.shape[-1]
    starts = list(range(0, n, block)) or [0]
    out = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    for s in starts:
        out = x[..., s:s + block].sum(-1)  # BUG: out += ...: each block's partial sum overwrites the one before
    return out


row_sum_block_mode = kcheck.Spec(
    name="row_sum_block_mode", kernel=_row_sum_last_block, reference=lambda x, block: x.sum(-1),
    inputs=[kcheck.Tensor("B", "T")], params={"block": [32, 8]}, reduce=["T"],
    dims={"B": kcheck.Dim(nominal=4, real=()), "T": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], seeds=1)


# -- a triangular analysis window with a wrong slope: its first coefficient is 0 in the reference and not in the
# -- kernel, so the kernel "reads" an element the reference ignores; every other coefficient is off too ------------


def _bartlett(x: torch.Tensor, slope: float) -> torch.Tensor:
    n = x.shape[-1]
    k = torch.arange(n, dtype=torch.float64, device=x.device)
    w = 1.0 - slope * (2.0 * k / n - 1.0).abs() if n > 1 else torch.ones(1, dtype=torch.float64, device=x.device)
    return x * w.to(x.dtype)


bartlett_wrong_slope = kcheck.Spec(
    name="bartlett_wrong_slope", kernel=lambda x: _bartlett(x, 0.9),  # BUG: the triangle's slope is 1
    reference=lambda x: _bartlett(x, 1.0),
    inputs=[kcheck.Tensor("M", "N", name="frames")],
    dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], seeds=1)


# -- a tone curve looked up in a table whose index comes from the data and is not clamped: on randn data the lookups
# -- land before and past the table at every size, multiples of the block included ------------------------------------


@triton.jit
def _tone_lut_kernel(x_ptr, lut_ptr, out_ptr, N, L, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    t = x * (L - 1)  # BUG: x is not clamped to [0, 1] first, so t leaves [0, L - 1]
    i = tl.floor(t).to(tl.int32)
    j = tl.minimum(i + 1, L - 1)
    f = t - i.to(tl.float32)
    a = tl.load(lut_ptr + i, mask=mask, other=0.0)
    b = tl.load(lut_ptr + j, mask=mask, other=0.0)
    tl.store(out_ptr + offs, a + f * (b - a), mask=mask)


def _tone_lut(x: torch.Tensor, lut: torch.Tensor) -> torch.Tensor:
    x, lut = x.contiguous(), lut.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        _tone_lut_kernel[(triton.cdiv(n, 64),)](x, lut, out, n, lut.numel(), BLOCK=64)
    return out


def _tone_lut_ref(x: torch.Tensor, lut: torch.Tensor) -> torch.Tensor:
    t = x.clamp(0.0, 1.0) * (lut.numel() - 1)
    i = t.floor().long().clamp(max=lut.numel() - 1)
    j = (i + 1).clamp(max=lut.numel() - 1)
    f = t - i.to(t.dtype)
    return lut[i] + f * (lut[j] - lut[i])


tone_lut_unclamped = kcheck.Spec(
    name="tone_lut_unclamped", kernel=_tone_lut, reference=_tone_lut_ref,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("L", name="lut")],
    dims={"N": kcheck.Dim(nominal=256, min=1, real=()), "L": kcheck.Dim(nominal=33, min=2, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- a scale whose load has no mask, launched with one block wider than every size the sweep tries: out-of-bounds
# -- reads at every size, no multiple of the block among them; the bound is the shape's, whatever the data ------------


@triton.jit
def _scale_big_block_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # BUG: no mask=offs < N
    tl.store(out_ptr + offs, 2.0 * x + 1.0, mask=offs < N)


def _scale_big_block(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        _scale_big_block_kernel[(triton.cdiv(x.numel(), 4096),)](x, out, x.numel(), BLOCK=4096)
    return out


tail_guard_big_block = kcheck.Spec(
    name="tail_guard_big_block", kernel=_scale_big_block, reference=lambda x: 2.0 * x + 1.0,
    inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=256, min=1, max=3000, real=())}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- radians to degrees with a factor twice too large: every element is the expected value times 2, an error of 100%
# -- of the values, as far from the reference as a permuted output by the relative L2 error ----------------------------


def _to_degrees(x: torch.Tensor) -> torch.Tensor:
    return x * (360.0 / 3.141592653589793)  # BUG: 180 / pi


degrees_twice = kcheck.Spec(
    name="degrees_twice", kernel=_to_degrees, reference=lambda x: x * (180.0 / 3.141592653589793),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], seeds=1)


# -- a normalized difference (a - b) / (a + b) without its guard for a + b == 0: all-zero inputs give NaN, and so do a
# -- few fp16 randn elements whose two values cancel exactly; the fp32 randn cases stay finite -------------------------


def _norm_diff(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a - b) / (a + b)  # BUG: where a + b == 0 the result is defined as 0


def _norm_diff_ref(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    den = a + b
    return torch.where(den != 0, (a - b) / torch.where(den != 0, den, torch.ones_like(den)), torch.zeros_like(den))


norm_diff_unguarded = kcheck.Spec(
    name="norm_diff_unguarded", kernel=_norm_diff, reference=_norm_diff_ref,
    inputs=[kcheck.Tensor("H", "W"), kcheck.Tensor("H", "W")],
    dims={"H": kcheck.Dim(nominal=32, real=()), "W": kcheck.Dim(nominal=512, real=())}, dtypes=["fp32", "fp16"],
    patterns=["randn", "zeros"], layouts=("contiguous",), seeds=2)


# -- a row's energy in dB from per-thread running fp32 sums: right on rows of thousands of elements, off on a row of
# -- millions, where log10 of a mean near 1 amplifies the sums' rounding; its offsets are fine past 2**31 -------------


def _row_energy_db(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    v = torch.zeros(m, -(-n // 256) * 256, dtype=x.dtype, device=x.device)
    v[:, :n] = x * x
    acc = torch.zeros(m, 256, dtype=x.dtype, device=x.device)
    for step in v.view(m, -1, 256).unbind(1):  # 256 threads, each adding its strided elements one after another
        acc += step
    return 10.0 * torch.log10(acc.sum(-1) / max(n, 1) + 1e-12)


row_energy_running_sum = kcheck.Spec(
    name="row_energy_running_sum", kernel=_row_energy_db,
    reference=lambda x: 10.0 * torch.log10((x.double() * x.double()).mean(-1) + 1e-12).to(x.dtype),
    inputs=[kcheck.Tensor("M", "N")], reduce=["N"],
    dims={"M": kcheck.Dim(nominal=4, real=()), "N": kcheck.Dim(nominal=256, real=())}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- the same row energy read through a flat offset that wraps at 2**22 elements (standing in, on a CPU, for an int32
# -- offset's 2**31): every row past the first 2**22 elements reads the tensor's start ---------------------------------


def _row_energy_wrapped(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    flat = x.reshape(-1)
    wrapped = flat[torch.arange(flat.numel(), device=x.device) % 2**22].view(m, n)  # BUG: the offset wraps
    return 10.0 * torch.log10((wrapped.double() * wrapped.double()).mean(-1) + 1e-12).to(x.dtype)


row_energy_offset_wraps = kcheck.Spec(
    name="row_energy_offset_wraps", kernel=_row_energy_wrapped,
    reference=lambda x: 10.0 * torch.log10((x.double() * x.double()).mean(-1) + 1e-12).to(x.dtype),
    inputs=[kcheck.Tensor("M", "N")], reduce=["N"],
    dims={"M": kcheck.Dim(nominal=4, real=()), "N": kcheck.Dim(nominal=256, real=())}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- a row's spread from E[x^2] - E[x]^2 in fp32, with no large-mean data to show it: on constant rows the two terms
# -- are equal and their rounded difference is below zero in about a third of the rows, whose root is NaN; all-zero
# -- rows give exactly zero -------------------------------------------------------------------------------------------


def _row_spread_one_pass(x: torch.Tensor) -> torch.Tensor:
    x32 = x.float()
    var = (x32 * x32).mean(-1) - x32.mean(-1) ** 2  # BUG: one pass; equal terms cancel to a rounding below zero
    return var.sqrt().to(x.dtype)


row_spread_one_pass = kcheck.Spec(
    name="row_spread_one_pass", kernel=_row_spread_one_pass,
    reference=lambda x: x.double().std(-1, unbiased=False).to(x.dtype),
    inputs=[kcheck.Tensor("M", "N")], reduce=["N"],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, min=1, real=())}, dtypes=["fp32"],
    patterns=["randn", "zeros", "constant"], layouts=("contiguous",), seeds=1)


# -- a first difference computed in place: each program reads the element before its block, which the program before
# -- it overwrites in the same launch. On a GPU the programs of one wave load before any of them stores, so the values
# -- come out right; run one after another (Triton's interpreter) the first element of each block reads the new
# -- value, and the interpreter's race check names the read and the write ---------------------------------------


@triton.jit
def _diff_inplace_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    cur = tl.load(x_ptr + offs, mask=mask, other=0.0)
    prev = tl.load(x_ptr + offs - 1, mask=mask & (offs > 0), other=0.0)  # BUG: the program before writes it
    tl.store(x_ptr + offs, cur - prev, mask=mask)


def _first_difference(x: torch.Tensor) -> torch.Tensor:
    out = x.contiguous().clone()
    if out.numel():
        _diff_inplace_kernel[(triton.cdiv(out.numel(), 256),)](out, out.numel(), BLOCK=256)
    return out


first_difference_inplace = kcheck.Spec(
    name="first_difference_inplace", kernel=_first_difference,
    reference=lambda x: x - torch.nn.functional.pad(x[:-1], (1, 0)),
    inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=4096, real=())}, dtypes=["fp32"],
    patterns=["randn"], seeds=1)


# -- a wrong constant in the branch for the rare large values: on randn data the first failing size is where the data
# -- first holds such a value (a threshold of the data, not of the size); it looks like failures past one block ----


@triton.jit
def _soft_clip_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    a = tl.abs(x)
    outer = 1.57 + 0.1 * (a - 3.5)  # BUG: 1.75 (0.5 * 3.5), the inner branch's value at the knee
    y = tl.where(a < 3.5, 0.5 * x, tl.where(x < 0, -outer, outer))
    tl.store(out_ptr + offs, y, mask=mask)


def _soft_clip(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        _soft_clip_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    return out


def _soft_clip_ref(x: torch.Tensor) -> torch.Tensor:
    x64 = x.double()
    a = x64.abs()
    return torch.where(a < 3.5, 0.5 * x64, torch.sign(x64) * (1.75 + 0.1 * (a - 3.5))).to(x.dtype)


soft_clip_rare_branch = kcheck.Spec(
    name="soft_clip_rare_branch", kernel=_soft_clip, reference=_soft_clip_ref,
    inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=8192, real=())}, dtypes=["fp32"],
    patterns=["randn"], seeds=1)


# -- a square transpose in place by pairs of tiles, where both programs of a pair swap it: the second swaps it back.
# -- One tile is right; past it the off-diagonal tiles hold their own values, which on arange inputs read as the
# -- transposed positions' (for a transpose, "not moved" and "moved to the transposed place" are the same words) ---


@triton.jit
def _transpose_pairs_kernel(x_ptr, n, BLOCK: tl.constexpr):
    ti = tl.program_id(0)
    tj = tl.program_id(1)
    r = tl.arange(0, BLOCK)
    rows_a = ti * BLOCK + r
    cols_a = tj * BLOCK + r
    mask_a = (rows_a < n)[:, None] & (cols_a < n)[None, :]
    mask_b = (cols_a < n)[:, None] & (rows_a < n)[None, :]
    a = tl.load(x_ptr + rows_a[:, None] * n + cols_a[None, :], mask=mask_a)
    b = tl.load(x_ptr + cols_a[:, None] * n + rows_a[None, :], mask=mask_b)
    # BUG: the programs below the diagonal (tj < ti) should return here: each pair is swapped by both of its programs
    tl.store(x_ptr + cols_a[:, None] * n + rows_a[None, :], tl.trans(a), mask=mask_b)
    tl.store(x_ptr + rows_a[:, None] * n + cols_a[None, :], tl.trans(b), mask=mask_a)


def _transpose_pairs_in_place(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    if x.numel():
        t = triton.cdiv(n, 16)
        _transpose_pairs_kernel[(t, t)](x, n, BLOCK=16)
    return x


def _transpose_pairs(x: torch.Tensor) -> torch.Tensor:
    return _transpose_pairs_in_place(x.contiguous().clone())


transpose_pairs_inplace = kcheck.Spec(
    name="transpose_pairs_inplace", kernel=_transpose_pairs, reference=lambda x: x.t().contiguous(),
    inputs=[kcheck.Tensor("N", "N")], dims={"N": kcheck.Dim(nominal=64, max=128, real=())}, dtypes=["fp32"],
    patterns=["randn"], seeds=1)


transpose_pairs_on_input = kcheck.Spec(
    name="transpose_pairs_on_input", kernel=_transpose_pairs_in_place, reference=lambda x: x.t().contiguous(),
    inputs=[kcheck.Tensor("N", "N", mutated=True)], dims={"N": kcheck.Dim(nominal=64, max=128, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- a 2-D elementwise update launched flat over all its elements, whose grid rounds down: the elements never written
# -- are the flat tail (rows past some point and part of the row before them), which no row or column pattern names --


@triton.jit
def _gain_flat_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, 1.5 * x, mask=mask)


def _gain_flat(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n // 1024:
        _gain_flat_kernel[(n // 1024,)](x, out, n, BLOCK=1024)  # BUG: triton.cdiv(n, 1024)
    return out


gain_flat_grid_floor = kcheck.Spec(
    name="gain_flat_grid_floor", kernel=_gain_flat, reference=lambda x: 1.5 * x,
    inputs=[kcheck.Tensor("C", "L")], dims={"C": kcheck.Dim(nominal=48, real=()), "L": kcheck.Dim(nominal=33, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- a 3x3 minimum filter written into its input by tiles: each tile reads its halo from the neighbouring tiles, which
# -- their own programs have already eroded (programs run one after another in the interpreter) -------------------


@triton.jit
def _erode_kernel(img_ptr, H, W, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inside = (rows < H)[:, None] & (cols < W)[None, :]
    acc = tl.full([BLOCK, BLOCK], float("inf"), tl.float32)
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            r = rows[:, None] + dy
            c = cols[None, :] + dx
            ok = inside & (r >= 0) & (r < H) & (c >= 0) & (c < W)
            acc = tl.minimum(acc, tl.load(img_ptr + r * W + c, mask=ok, other=float("inf")))
    tl.store(img_ptr + rows[:, None] * W + cols[None, :], acc, mask=inside)  # BUG: reads must come from a copy


def _erode_in_place(img: torch.Tensor) -> torch.Tensor:
    H, W = img.shape
    if img.numel():
        _erode_kernel[(triton.cdiv(H, 16), triton.cdiv(W, 16))](img, H, W, BLOCK=16)
    return img


def _erode_ref(img: torch.Tensor) -> torch.Tensor:
    x = img.double()[None, None]
    padded = torch.nn.functional.pad(x, (1, 1, 1, 1), value=float("inf"))
    return (-torch.nn.functional.max_pool2d(-padded, 3, stride=1))[0, 0].to(img.dtype)


erode_in_place = kcheck.Spec(
    name="erode_in_place", kernel=_erode_in_place, reference=_erode_ref,
    inputs=[kcheck.Tensor("H", "W", mutated=True)],
    dims={"H": kcheck.Dim(nominal=48, max=128, real=()), "W": kcheck.Dim(nominal=40, max=128, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- a 2-D mirror (out[i, j] = x[i, W - 1 - j]) whose source strides are swapped: the first program's first element
# -- is read (W - 1) rows down, past the end of a wide tensor, although every mask is there -----------------------


@triton.jit
def _mirror_kernel(x_ptr, out_ptr, H, W, sxh, sxw, soh, sow, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inside = (rows < H)[:, None] & (cols < W)[None, :]
    src = x_ptr + rows[:, None] * sxw + (W - 1 - cols)[None, :] * sxh  # BUG: rows * sxh + (W - 1 - cols) * sxw
    tl.store(out_ptr + rows[:, None] * soh + cols[None, :] * sow, tl.load(src, mask=inside), mask=inside)


def _mirror(x: torch.Tensor) -> torch.Tensor:
    H, W = x.shape
    out = torch.empty_like(x)
    if x.numel():
        _mirror_kernel[(triton.cdiv(H, 16), triton.cdiv(W, 16))](x, out, H, W, *x.stride(), *out.stride(), BLOCK=16)
    return out


mirror_strides_swapped = kcheck.Spec(
    name="mirror_strides_swapped", kernel=_mirror, reference=lambda x: x.flip(1),
    inputs=[kcheck.Tensor("H", "W")], dims={"H": kcheck.Dim(nominal=40, real=()), "W": kcheck.Dim(nominal=72, real=())},
    dtypes=["fp32"], patterns=["randn"], seeds=1)


# -- points [N, 2] counted into a 16 x 16 grid of cells with a load, an add and a plain store: two points of one cell
# -- in different programs (or lanes) lose a count. A few points rarely share a cell, so N = 1 and N = 2 pass --------


@triton.jit
def _splat_count_kernel(xy_ptr, grid_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(xy_ptr + offs * 2, mask=mask, other=0.0)
    y = tl.load(xy_ptr + offs * 2 + 1, mask=mask, other=0.0)
    cx = tl.minimum(tl.maximum(((x + 4.0) * 2.0).to(tl.int32), 0), 15)
    cy = tl.minimum(tl.maximum(((y + 4.0) * 2.0).to(tl.int32), 0), 15)
    cell = cy * 16 + cx
    count = tl.load(grid_ptr + cell, mask=mask, other=0.0)
    tl.store(grid_ptr + cell, count + 1.0, mask=mask)  # BUG: tl.atomic_add(grid_ptr + cell, 1.0, mask=mask)


def _splat_count(xy: torch.Tensor) -> torch.Tensor:
    xy = xy.contiguous()
    grid = torch.zeros(256, dtype=torch.float32, device=xy.device)
    n = xy.shape[0]
    if n:
        _splat_count_kernel[(triton.cdiv(n, 8),)](xy, grid, n, BLOCK=8)
    return grid.view(16, 16)


def _splat_count_reference(xy: torch.Tensor) -> torch.Tensor:
    cells = (((xy.float() + 4.0) * 2.0).to(torch.int32).clamp(0, 15))
    grid = torch.zeros(256, dtype=torch.float32, device=xy.device)
    grid.index_put_((cells[:, 1] * 16 + cells[:, 0],), torch.ones(xy.shape[0], device=xy.device), accumulate=True)
    return grid.view(16, 16)


splat_count_plain_store = kcheck.Spec(
    name="splat_count_plain_store", kernel=_splat_count, reference=_splat_count_reference,
    inputs=[kcheck.Tensor("N", 2)], dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- the nearest depth per cell of a 16 x 16 grid, kept by a load, a minimum and a plain store where an atomic
#    minimum is needed: programs whose points share a cell overwrite each other's depth ------------------------------


@triton.jit
def _zbuffer_kernel(p_ptr, depth_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(p_ptr + offs * 3, mask=mask, other=0.0)
    y = tl.load(p_ptr + offs * 3 + 1, mask=mask, other=0.0)
    z = tl.load(p_ptr + offs * 3 + 2, mask=mask, other=0.0)
    cx = tl.minimum(tl.maximum(((x + 4.0) * 2.0).to(tl.int32), 0), 15)
    cy = tl.minimum(tl.maximum(((y + 4.0) * 2.0).to(tl.int32), 0), 15)
    cell = cy * 16 + cx
    near = tl.load(depth_ptr + cell, mask=mask, other=0.0)
    tl.store(depth_ptr + cell, tl.minimum(near, z), mask=mask)  # BUG: tl.atomic_min(depth_ptr + cell, z, mask=mask)


def _zbuffer(points: torch.Tensor) -> torch.Tensor:
    points = points.contiguous()
    depth = torch.full((256,), float("inf"), dtype=torch.float32, device=points.device)
    n = points.shape[0]
    if n:
        _zbuffer_kernel[(triton.cdiv(n, 8),)](points, depth, n, BLOCK=8)
    return depth.view(16, 16)


def _zbuffer_reference(points: torch.Tensor) -> torch.Tensor:
    cells = (((points[:, :2].float() + 4.0) * 2.0).to(torch.int32).clamp(0, 15))
    depth = torch.full((256,), float("inf"), dtype=torch.float32, device=points.device)
    return depth.scatter_reduce(0, (cells[:, 1] * 16 + cells[:, 0]).long(), points[:, 2].float(), "amin").view(16, 16)


zbuffer_plain_min = kcheck.Spec(
    name="zbuffer_plain_min", kernel=_zbuffer, reference=_zbuffer_reference,
    inputs=[kcheck.Tensor("N", 3)], dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"],
    patterns=["randn"], layouts=("contiguous",), seeds=1)


# -- A [P, Q] tiled 2 x 3 times (A.repeat(2, 3)) with the source indices swapped: A[c % Q, r % P] for A[r % P, c % Q].
# -- Where Q > P the row index leaves A (reads past its end); where Q <= P every read is in bounds and still wrong --


@triton.jit
def _tile_kernel(a_ptr, out_ptr, P, Q, R, C, sa0, sa1, so0, so1, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inside = (rows < R)[:, None] & (cols < C)[None, :]
    src = a_ptr + (cols % Q)[None, :] * sa0 + (rows % P)[:, None] * sa1  # BUG: (rows % P) * sa0 + (cols % Q) * sa1
    tl.store(out_ptr + rows[:, None] * so0 + cols[None, :] * so1, tl.load(src, mask=inside), mask=inside)


def _tile(a: torch.Tensor) -> torch.Tensor:
    P, Q = a.shape
    out = torch.empty((2 * P, 3 * Q), dtype=a.dtype, device=a.device)
    if out.numel():
        grid = (triton.cdiv(2 * P, 16), triton.cdiv(3 * Q, 16))
        _tile_kernel[grid](a, out, P, Q, 2 * P, 3 * Q, *a.stride(), *out.stride(), BLOCK=16)
    return out


tile_indices_swapped = kcheck.Spec(
    name="tile_indices_swapped", kernel=_tile, reference=lambda a: a.repeat(2, 3),
    inputs=[kcheck.Tensor("P", "Q")], dims={"P": kcheck.Dim(nominal=24, real=()), "Q": kcheck.Dim(nominal=40, real=())},
    dtypes=["fp32"], patterns=["randn"], seeds=1)


# -- Nadaraya-Watson regression, exp(-d / 2h^2) without subtracting the row's largest log-weight: far from every
# -- sample the weights all underflow and the estimate is 0 / 0. NaN on randn and on constant rows far apart --

_NW_BANDWIDTH = 0.05


def _nw_log_weights(q: torch.Tensor, xs: torch.Tensor) -> torch.Tensor:
    d = ((q[:, None, :] - xs[None, :, :]) ** 2).sum(-1)
    return -d / (2 * _NW_BANDWIDTH ** 2)


def _nw_unshifted(q: torch.Tensor, xs: torch.Tensor, ys: torch.Tensor) -> torch.Tensor:
    w = torch.exp(_nw_log_weights(q, xs))  # BUG: torch.exp(logits - logits.amax(1, keepdim=True))
    return (w * ys[None, :]).sum(1) / w.sum(1)


def _nw_reference(q: torch.Tensor, xs: torch.Tensor, ys: torch.Tensor) -> torch.Tensor:
    return (torch.softmax(_nw_log_weights(q, xs), dim=1) * ys[None, :]).sum(1)


kernel_regression_unshifted = kcheck.Spec(
    name="kernel_regression_unshifted", kernel=_nw_unshifted, reference=_nw_reference,
    inputs=[kcheck.Tensor("Q", "D"), kcheck.Tensor("S", "D"), kcheck.Tensor("S")],
    dims={"Q": kcheck.Dim(nominal=64), "S": kcheck.Dim(nominal=16), "D": kcheck.Dim(nominal=3, real=())},
    dtypes=["fp32", "fp16"])


# -- A 3x3 colour matrix applied to [N, 3] pixels (a colour-space conversion) read transposed: out = px @ M for
# -- px @ M^T. The matrix is a Custom (a well-conditioned transform near the identity) of a fixed 3x3 shape: no size
# -- of the Spec is non-square, so only the reference of the transposed matrix can say it --


def _colour_matrix(ctx: kcheck.CaseContext) -> torch.Tensor:
    m = torch.eye(3) + 0.2 * torch.randn((3, 3), generator=ctx.generator)
    return m.to(dtype=ctx.dtype, device=ctx.device)


def _colour_transposed(m: torch.Tensor, px: torch.Tensor) -> torch.Tensor:
    return (px.float() @ m.float()).to(px.dtype)  # BUG: px @ m.T


colour_matrix_transposed = kcheck.Spec(
    name="colour_matrix_transposed", kernel=_colour_transposed, reference=lambda m, px: px @ m.T,
    inputs=[kcheck.Custom(_colour_matrix, name="m", dims=(3, 3)), kcheck.Tensor("N", 3, name="px")],
    dims={"N": kcheck.Dim(nominal=256)}, dtypes=["fp32"])


# -- A charge deposit whose launcher adds into a scratch buffer from torch.empty, then copies it into the output the
# -- Spec passes in: the scratch is never zeroed. kcheck poisons the Spec's outputs; the scratch was left as the
# -- allocator gave it (zeros or stale values, by size and by run) --


def _deposit_scratch(cells: torch.Tensor, charge: torch.Tensor, out: torch.Tensor) -> None:
    acc = torch.empty(out.shape, dtype=torch.float32, device=out.device)  # BUG: torch.zeros
    acc.index_add_(0, cells, charge.float())
    out.copy_(acc)


def _deposit_reference(cells: torch.Tensor, charge: torch.Tensor) -> torch.Tensor:
    return torch.zeros(48, dtype=charge.dtype, device=charge.device).index_add_(0, cells, charge)


deposit_scratch_empty = kcheck.Spec(
    name="deposit_scratch_empty", kernel=_deposit_scratch, reference=_deposit_reference,
    inputs=[kcheck.Index("P", high=48), kcheck.Tensor("P")], outputs=[kcheck.Tensor(48)],
    dims={"P": kcheck.Dim(nominal=512)}, dtypes=["fp32"])


# -- a lookup table indexed by a value the kernel does not clamp: near indices read past the table (garbage, here
# -- zeros), far ones (large data, inf) leave the process's memory and crash it; randn data never crashes it --

_LUT = 16


def _lut_unclamped(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    idx = torch.nan_to_num(x * _LUT, nan=0.0, posinf=2.0**40, neginf=-(2.0**40)).floor()  # BUG: no clamp to [0, 15]
    if bool((idx.abs() > 4096).any()):
        ctypes.string_at(8)  # an address far past the table: the process dies with SIGSEGV
    inside = (idx >= 0) & (idx < _LUT)
    return torch.where(inside, table[idx.clamp(0, _LUT - 1).long()], torch.zeros_like(x))


def _lut_reference(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    idx = torch.nan_to_num(x * _LUT, nan=0.0, posinf=2.0**40, neginf=-(2.0**40)).floor()
    return table[idx.clamp(0, _LUT - 1).long()]


lut_unclamped = kcheck.Spec(
    name="lut_unclamped", kernel=_lut_unclamped, reference=_lut_reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor(_LUT, pattern="randn")],
    dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=64)}, dtypes=["fp32"])


# -- A square kernel matrix double-centred (kernel PCA: K - row means - column means + the grand mean), its row
# -- means taken down the columns instead. The input is N x N at every size, so "passes on the square shapes only"
# -- cannot be seen, and every output depends on every element; made symmetric, its row and column means agree and
# -- the kernel is right --


def _double_centre(k: torch.Tensor) -> torch.Tensor:
    return k - k.mean(1, keepdim=True) - k.mean(0, keepdim=True) + k.mean()


def _double_centre_wrong_axis(k: torch.Tensor) -> torch.Tensor:
    kf = k.float()
    rows = kf.mean(0)[:, None]  # BUG: kf.mean(1)[:, None], each row's own mean
    return (kf - rows - kf.mean(0, keepdim=True) + kf.mean()).to(k.dtype)


double_centre_wrong_axis = kcheck.Spec(
    name="double_centre_wrong_axis", kernel=_double_centre_wrong_axis, reference=_double_centre,
    inputs=[kcheck.Tensor("N", "N", name="k")], dims={"N": kcheck.Dim(nominal=64)}, dtypes=["fp32"])


def _double_centre_constant(k: torch.Tensor) -> torch.Tensor:
    kf = k.float()
    rows = kf.sum(1, keepdim=True) / (k.shape[1] + 1)  # BUG: / N, not / (N + 1)
    return (kf - rows - kf.mean(0, keepdim=True) + kf.mean()).to(k.dtype)


#: the control: a wrong constant on the same square input stays wrong when the input is symmetric
double_centre_constant = kcheck.Spec(
    name="double_centre_constant", kernel=_double_centre_constant, reference=_double_centre,
    inputs=[kcheck.Tensor("N", "N", name="k")], dims={"N": kcheck.Dim(nominal=64)}, dtypes=["fp32"])


# -- Columns scaled by the total over their sums (PMI's marginals), which a tiled kernel gathers tile by tile
# -- (16 x 16): each tile adds its row sums at its column positions, as a `tl.sum(tile, axis=1)` stored at the
# -- columns does. Wrong at every shape, square ones too (tiles off the diagonal mix other rows in), and every
# -- output depends on every element (the total); right on a symmetric input that fits one tile --

_TILE = 16


def _column_sums_tiled_wrong_axis(c: torch.Tensor) -> torch.Tensor:
    M, N = c.shape
    k = torch.zeros(N, dtype=torch.float32, device=c.device)
    for i0 in range(0, M, _TILE):
        for j0 in range(0, N, _TILE):
            tile = torch.zeros(_TILE, _TILE, dtype=torch.float32, device=c.device)
            part = c[i0:i0 + _TILE, j0:j0 + _TILE].float()
            tile[:part.shape[0], :part.shape[1]] = part
            s = tile.sum(1)  # BUG: tile.sum(0), the tile's column sums
            k[j0:j0 + part.shape[1]] += s[:part.shape[1]]
    return (c.float() * k.sum() / (1 + k.abs())[None, :]).to(c.dtype)


column_scale_tiled_wrong_axis = kcheck.Spec(
    name="column_scale_tiled_wrong_axis", kernel=_column_sums_tiled_wrong_axis,
    reference=lambda c: c * c.sum() / (1 + c.sum(0, keepdim=True).abs()),
    inputs=[kcheck.Tensor("M", "N", name="c")], dims={"M": kcheck.Dim(nominal=40), "N": kcheck.Dim(nominal=24)},
    dtypes=["fp32"])


# -- A thin lens's image distance, 1 / (1/f - 1/u), in its textbook form: where the object sits near the focal plane
# -- the two rounded reciprocals cancel, at a few elements of randn data, where rounding the inputs alone moves the
# -- exact result as far (f * (u / (u - f)) keeps u - f exact there). The control: the stable form with its last
# -- column copied from the one before (a few wrong elements too, none where the operation is ill-conditioned) --


def _lens_reference(f: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    return f * u / (u - f)


def _lens_textbook(f: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    return 1.0 / (1.0 / f - 1.0 / u)  # BUG: cancels where u is close to f


def _lens_last_column(f: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    v = f * (u / (u - f))
    v[:, -1] = v[:, -2]  # BUG: the last column copied from the one before
    return v


lens_textbook = kcheck.Spec(
    name="lens_textbook", kernel=_lens_textbook, reference=_lens_reference,
    inputs=[kcheck.Tensor("M", "N", name="f"), kcheck.Tensor("M", "N", name="u")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=96)}, dtypes=["fp32"])

lens_last_column = kcheck.Spec(
    name="lens_last_column", kernel=_lens_last_column, reference=_lens_reference,
    inputs=[kcheck.Tensor("M", "N", name="f"), kcheck.Tensor("M", "N", name="u")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=96)}, dtypes=["fp32"])


# -- A chi-square distance between sparse histograms, sum of (a - b)^2 / (a + b) over the bins, without the guard for
# -- a bin empty in both: its data holds exact zeros, so the randn-labelled cases are NaN too, at every scale --


def _sparse_histogram(ctx: kcheck.CaseContext) -> torch.Tensor:
    counts = ctx.rand(ctx.dims["M"], ctx.dims["N"], dtype=torch.float32) * 10.0
    return torch.where(ctx.rand(ctx.dims["M"], ctx.dims["N"], dtype=torch.float32) < 0.3, 0.0, counts).to(ctx.dtype)


def _chi_square_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    s = a + b
    return 0.5 * torch.where(s > 0, (a - b) ** 2 / torch.where(s > 0, s, 1.0), 0.0).sum(-1)


def _chi_square_unguarded(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return 0.5 * ((a - b) ** 2 / (a + b)).sum(-1)  # BUG: no guard for a bin empty in both


chi_square_unguarded = kcheck.Spec(
    name="chi_square_unguarded", kernel=_chi_square_unguarded, reference=_chi_square_reference,
    inputs=[kcheck.Custom(_sparse_histogram, name="a", dims=("M", "N")),
            kcheck.Custom(_sparse_histogram, name="b", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=64)}, reduce=["N"], dtypes=["fp32"])


# -- A magnitude-weighted row mean, sum(x |x|) / sum(|x|), gathered chunk by chunk (32 columns) with a loop over whole
# -- chunks only: below one chunk nothing is summed (0 / 0, NaN), past it the ragged tail is dropped (finite, wrong) --


def _weighted_mean_reference(x: torch.Tensor) -> torch.Tensor:
    return (x * x.abs()).sum(1) / x.abs().sum(1)


def _weighted_mean_whole_chunks(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[1] // 32 * 32  # BUG: whole chunks only (a loop to N // 32, not cdiv(N, 32))
    xs = x[:, :n].float()
    return ((xs * xs.abs()).sum(1) / xs.abs().sum(1)).to(x.dtype)


weighted_mean_whole_chunks = kcheck.Spec(
    name="weighted_mean_whole_chunks", kernel=_weighted_mean_whole_chunks, reference=_weighted_mean_reference,
    inputs=[kcheck.Tensor("M", "N", name="x")], dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=360)},
    reduce=["N"], dtypes=["fp32"])


# -- Tukey's biweight loss with Huber's tuning constant (1.345) where the reference takes Tukey's (4.685): off at
# -- nearly every element, at every shape and seed, by a relative L2 error of about 0.84 (the loss saturates at
# -- c^2 / 6), more than a fraction of the values and less than a zeroed (1) or permuted (1.4) output --


def _biweight(r: torch.Tensor, c: float) -> torch.Tensor:
    inside = (1 - (r / c) ** 2) ** 3
    return torch.where(r.abs() < c, c * c / 6 * (1 - inside), torch.full_like(r, c * c / 6))


biweight_huber_constant = kcheck.Spec(
    name="biweight_huber_constant", kernel=lambda r: _biweight(r.float(), 1.345).to(r.dtype),
    reference=lambda r: _biweight(r, 4.685),
    inputs=[kcheck.Tensor("M", "N", name="r")], dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=200)},
    dtypes=["fp32"])


# -- A moving range (|x[t+1] - x[t]| per row) whose mask is one too wide: each row's last lane reads one past the
# -- row (past the tensor for the last row) and stores onto the next row's first output, which that row's program
# -- writes too: write-write races between programs at every size, beside single-lane reads one past the end --


@triton.jit
def _moving_range_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N  # BUG: cols < N - 1
    a = tl.load(x_ptr + row * N + cols + 1, mask=mask, other=0.0)
    b = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * (N - 1) + cols, tl.abs(a - b), mask=mask)


def _moving_range(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty(M, max(N - 1, 0), dtype=x.dtype, device=x.device)
    if M and N > 1:
        _moving_range_kernel[(M,)](x, out, N, BLOCK=triton.next_power_of_2(N))
    return out


moving_range_one_too_wide = kcheck.Spec(
    name="moving_range_one_too_wide", kernel=_moving_range,
    reference=lambda x: (x[:, 1:] - x[:, :-1]).abs(),
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=8, max=16), "N": kcheck.Dim(nominal=40, min=2, max=72)},
    dtypes=["fp32"])


# -- An outer product of two 1-D operands in square tiles, the operands swapped inside each tile (a row's factor read
# -- along the columns): wrong at every size, and no per-channel probe covers two 1-D operands. Raising one element
# -- of the row operand changes a column of the tile, outside that row: the slice probe sees the axis --


@triton.jit
def _outer_scale_kernel(a_ptr, b_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + rows, mask=rows < M, other=0.0)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0.0)
    v = a[None, :] / (1.0 + b[:, None] * b[:, None])  # BUG: a[:, None] ... b[None, :]
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], v, mask=(rows[:, None] < M) & (cols[None, :] < N))


def _outer_scale(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, N = a.shape[0], b.shape[0]
    out = torch.empty(M, N, dtype=a.dtype, device=a.device)
    if M and N:
        _outer_scale_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a.contiguous(), b.contiguous(), out, M, N,
                                                                        BLOCK=16)
    return out


outer_scale_swapped = kcheck.Spec(
    name="outer_scale_swapped", kernel=_outer_scale,
    reference=lambda a, b: a[:, None] / (1.0 + b[None, :] ** 2),
    inputs=[kcheck.Tensor("M", name="a"), kcheck.Tensor("N", name="b")],
    dims={"M": kcheck.Dim(nominal=40, max=96), "N": kcheck.Dim(nominal=24, max=96)},
    dtypes=["fp32"])


# -- A quick GELU, x * sigmoid(1.702 x), with the coefficient's sign flipped: wrong at every element of every size by
# -- more than the values (relative L2 error past 1: no systematic-error), by no common factor, at every value. Each
# -- output still reads its own input only, as the raised slices show: the arithmetic, not an index --


quick_gelu_sign = kcheck.Spec(
    name="quick_gelu_sign", kernel=lambda x: x * torch.sigmoid(-1.702 * x),
    reference=lambda x: x * torch.sigmoid(1.702 * x),
    inputs=[kcheck.Tensor("M", "N", name="x")], dims={"M": kcheck.Dim(nominal=16, max=64),
                                                      "N": kcheck.Dim(nominal=48, max=96)},
    dtypes=["fp32"])


# -- Three colour planes of a tone curve, the third plane's store missing: the same one plane of three is never
# -- written at every shape, the other two right. A missing store, not a bound (no block lies along a dimension of
# -- fixed size) nor an index (its holes would move with the sizes) --


def _planes_reference(img: torch.Tensor) -> torch.Tensor:
    return img / (1.0 + img.abs())


def _planes_third_unwritten(img: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(img)
    out[0] = img[0] / (1.0 + img[0].abs())
    out[1] = img[1] / (1.0 + img[1].abs())  # BUG: the third plane's store is missing
    return out


planes_third_unwritten = kcheck.Spec(
    name="planes_third_unwritten", kernel=_planes_third_unwritten, reference=_planes_reference,
    inputs=[kcheck.Tensor(3, "H", "W", name="img")],
    dims={"H": kcheck.Dim(nominal=24, max=96), "W": kcheck.Dim(nominal=40, max=96)}, dtypes=["fp32"])


# -- A Toeplitz matrix-vector product with the diagonal offset negated (T^T x): the index is wrong along the reduced
# -- dimension only, which no raised slice of a kept-apart dimension shows; the batch's slices stay apart --


def _toeplitz(c: torch.Tensor, r: torch.Tensor, n: int, transposed: bool) -> torch.Tensor:
    idx = torch.arange(n, device=c.device)
    d = idx[:, None] - idx[None, :]
    if transposed:
        d = -d
    return torch.where(d >= 0, c[d.clamp(min=0)], r[(-d).clamp(min=0)])


toeplitz_transposed = kcheck.Spec(
    name="toeplitz_transposed", kernel=lambda c, r, x: x @ _toeplitz(c, r, x.shape[-1], True).T,
    reference=lambda c, r, x: x @ _toeplitz(c, r, x.shape[-1], False).T,
    inputs=[kcheck.Tensor("N", name="c"), kcheck.Tensor("N", name="r"), kcheck.Tensor("B", "N", name="x")],
    dims={"B": kcheck.Dim(nominal=3, max=6), "N": kcheck.Dim(nominal=40, max=96)}, reduce=["N"], dtypes=["fp32"])


# -- A matrix product that reads B (K x N) with rows K long: right wherever K == N, wrong elsewhere. Raising one
# -- column of B moves other columns of the product (B's elements are read at other places), which is also what an
# -- operand on the wrong axis does; but no operand here is per-channel, and a reduction over the wrong axis fails on
# -- square shapes too: a stride --


def _matmul_b_pitch(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    k, n = b.shape
    flat = torch.cat([b.reshape(-1), b.new_zeros(k * k + n)])  # past B's end: zeros, as a masked read would give
    rows = torch.arange(k, device=b.device)[:, None] * k  # BUG: B's rows are n long
    return a @ flat[rows + torch.arange(n, device=b.device)[None, :]]


matmul_b_pitch = kcheck.Spec(
    name="matmul_b_pitch", kernel=_matmul_b_pitch, reference=torch.matmul,
    inputs=[kcheck.Tensor("M", "K", name="a"), kcheck.Tensor("K", "N", name="b")],
    dims={d: kcheck.Dim(nominal=24, max=80) for d in "MKN"}, reduce=["K"], dtypes=["fp32"])


# -- Log returns of prices quoted in basis points, log(1 + r) for log1p(r) with r a few 1e-4: 1 + r keeps only the
# -- leading digits of r, so most elements of ordinary data are wrong by a fraction of a percent, like a coefficient
# -- off; but that error is rounding, drawn anew when the inputs move a little --


def _log_return_bps(x: torch.Tensor) -> torch.Tensor:
    r = x * 1e-4
    return torch.log(1.0 + r) * 1e4  # log1p(r): 1 + r rounds r's trailing digits away


log_return_bps = kcheck.Spec(
    name="log_return_bps", kernel=_log_return_bps, reference=lambda x: torch.log1p(x * 1e-4) * 1e4,
    inputs=[kcheck.Tensor("M", "N", name="bps")],
    dims={"M": kcheck.Dim(nominal=16, max=64), "N": kcheck.Dim(nominal=40, max=96)}, dtypes=["fp32"])


# -- A market concentration index (the sum of squared shares per row) whose rows are read as if contiguous, and
# -- whose launcher returns NaN for rows of no firm where the reference sums nothing to 0: the empty case's NaN says
# -- nothing of a layout --


def _hhi_rows_contiguous(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    if n == 0:
        return torch.full((m,), float("nan"), dtype=x.dtype, device=x.device)
    rows = x.as_strided((m, n), (n, 1))  # BUG: the rows' own stride is x.stride(0)
    share = rows.abs() / rows.abs().sum(-1, keepdim=True)
    return share.pow(2).sum(-1)


def _hhi_reference(x: torch.Tensor) -> torch.Tensor:
    share = x.abs() / x.abs().sum(-1, keepdim=True)
    return share.pow(2).sum(-1)


hhi_rows_contiguous = kcheck.Spec(
    name="hhi_rows_contiguous", kernel=_hhi_rows_contiguous, reference=_hhi_reference,
    inputs=[kcheck.Tensor("M", "N", name="sales")],
    dims={"M": kcheck.Dim(nominal=16, max=64), "N": kcheck.Dim(nominal=40, max=96)}, reduce=["N"], dtypes=["fp32"])


# -- The inverse-square intensity at sensor positions from four point sources on a line, 1 / (q - x)^2 without the
# -- reference's eps: in bf16, a sensor and a source of randn positions share a value now and then (an 8-bit
# -- mantissa), a few dozen of 4096 sensors; fp32 positions never do --


def _intensity(q: torch.Tensor, x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    d = q[:, None].float() - x[None, :].float()
    return (p[None, :].float() / (d * d)).sum(-1).to(q.dtype)  # BUG: no eps under the square


def _intensity_reference(q: torch.Tensor, x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    d = q[:, None] - x[None, :]
    return (p[None, :] / (d * d + 1e-30)).sum(-1)


inverse_square_intensity = kcheck.Spec(
    name="inverse_square_intensity", kernel=_intensity, reference=_intensity_reference,
    inputs=[kcheck.Tensor("Q", name="sensors"), kcheck.Tensor(4, name="sources"), kcheck.Tensor(4, name="power")],
    dims={"Q": kcheck.Dim(nominal=4096, max=8192)}, dtypes=["fp32", "bf16"])


# -- A three-point smoothing along each row with the edge value repeated, whose right neighbour is clamped to
# -- N - 2 instead of N - 1: the last two columns are wrong, at every N, every row; nothing read out of bounds --


def _smooth3_clamp_short(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    j = torch.arange(n, device=x.device)
    left = x[:, (j - 1).clamp(min=0)]
    right = x[:, (j + 1).clamp(max=max(n - 2, 0))]  # BUG: max=n - 1
    return (left + x + right) / 3


def _smooth3_reference(x: torch.Tensor) -> torch.Tensor:
    padded = torch.cat([x[:, :1], x, x[:, -1:]], dim=1)
    return (padded[:, :-2] + padded[:, 1:-1] + padded[:, 2:]) / 3


smooth3_clamp_short = kcheck.Spec(
    name="smooth3_clamp_short", kernel=_smooth3_clamp_short, reference=_smooth3_reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=16, max=64), "N": kcheck.Dim(nominal=40, min=1, max=96)}, dtypes=["fp32"])


# -- log(1 + x) for log1p(x), per mille: right on randn data, wrong once the data is scaled down (a small x's digits
# -- lost in 1 + x, drawn anew by rounding), and exactly zeros on the tiny pattern, where log1p is x --


log1p_naive = kcheck.Spec(
    name="log1p_naive", kernel=lambda x: torch.log(1 + x) * 1e3,  # BUG: torch.log1p(x)
    reference=lambda x: torch.log1p(x) * 1e3, inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=16, max=64), "N": kcheck.Dim(nominal=40, max=96)}, dtypes=["fp32"])


# -- The versine of angles in milliradians as 1 - cos(theta): cos(theta) rounds to within a few ulps of 1, and the
# -- difference keeps only those few ulps (multiples of 2**-24) where the result is about 5e-7 --


versine_mrad = kcheck.Spec(
    name="versine_mrad", kernel=lambda x: 1 - torch.cos(x * 1e-3),  # BUG: 2 * sin(theta / 2) ** 2
    reference=lambda x: 2 * torch.sin(x * 5e-4) ** 2, inputs=[kcheck.Tensor("M", "N", name="theta_mrad")],
    dims={"M": kcheck.Dim(nominal=16, max=64), "N": kcheck.Dim(nominal=40, max=96)}, dtypes=["fp32"])


# -- The excess length of a cable sagging d metres over a 10 km span, sqrt(L^2 + d^2) - L: in fp32, L^2 = 1e8 has an
# -- ulp of 8, so a sag of a metre or two leaves it unchanged and the excess is exactly 0; ten times the sag computes
# -- (d^2 / (sqrt(L^2 + d^2) + L) keeps every digit) --


excess_length = kcheck.Spec(
    name="excess_length", kernel=lambda d: torch.sqrt(1e8 + d * d) - 1e4,  # BUG: d * d / (sqrt(1e8 + d * d) + 1e4)
    reference=lambda d: d * d / (torch.sqrt(1e8 + d * d) + 1e4), inputs=[kcheck.Tensor("N", name="sag_m")],
    dims={"N": kcheck.Dim(nominal=3000, max=20000)}, dtypes=["fp32"])


# -- A per-channel gain whose backward reads the gain along the rows (as a kernel on square tiles that loads g[cols]
# -- and broadcasts it with [:, None]): row i takes gain[i], and 0 past the gain's end (the masked load's fill) --


class _GainRowsBackward(_GainLostRows):  # its forward, x * gain; another backward
    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, gain = ctx.saved_tensors
        along_rows = torch.cat([gain, gain.new_zeros(max(x.shape[0] - gain.shape[0], 0))])[: x.shape[0]]
        return g * along_rows[:, None].to(g.dtype), (g * x).sum(0)  # BUG: g * gain[None, :]


gain_grad_rows = kcheck.Spec(
    name="gain_grad_rows", kernel=lambda x, gain: _GainRowsBackward.apply(x, gain), reference=lambda x, gain: x * gain,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="gain")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=96, real=())}, dtypes=["fp32"], grad=True)


# -- A row sum whose last row also reads what lies past its data, a value that changes from one launch to the next
# -- (memory past an allocation, as a GPU without access checks lets a kernel read): its error is no function of the
# -- inputs, and the jitter probe's change of it says nothing of rounding --

_past_end = torch.Generator().manual_seed(5)


def _row_sum_reads_garbage(x: torch.Tensor) -> torch.Tensor:
    out = x.sum(dim=1)
    out[-1] += 1e15 * torch.randn((), generator=_past_end)  # BUG: the last row reads one element past the data
    return out


row_sum_reads_garbage = kcheck.Spec(
    name="row_sum_reads_garbage", kernel=_row_sum_reads_garbage, reference=lambda x: x.sum(dim=1),
    inputs=[kcheck.Tensor("M", "N", name="x")], dims={"M": kcheck.Dim(nominal=16, max=64),
                                                      "N": kcheck.Dim(nominal=48, max=96)},
    dtypes=["fp32"])


# -- A mixing matrix read with its dimensions swapped (rows N long where they are K long), whose launcher dies (as a
# -- wild read past a tensor kills a GPU process) wherever M is odd: the smallest failing case crashes, and the probes
# -- of layout learn nothing there; the cases that compute show the transposed reference where K == N --


def _mix_read_transposed(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    if x.shape[0] % 2:
        os.abort()
    k, n = w.shape
    return x @ w.reshape(n, k).t()  # BUG: w is [K, N]


mix_transposed_crashing = kcheck.Spec(
    name="mix_transposed_crashing", kernel=_mix_read_transposed, reference=torch.matmul,
    inputs=[kcheck.Tensor("M", "K", name="x"), kcheck.Tensor("K", "N", name="w")],
    dims={"M": kcheck.Dim(nominal=16, max=64), "K": kcheck.Dim(nominal=24, max=64),
          "N": kcheck.Dim(nominal=40, max=96)}, reduce=["K"], dtypes=["fp32"], seeds=1)


# -- The same mixing matrix read with its dimensions swapped, from its storage as if it were contiguous: a strided
# -- view's padding (NaN, as kcheck pads it) comes in, so the smallest failing cases of the most severe kind are NaN
# -- ones, where no value can match a transposed reference --


def _mix_read_flat(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    k, n = w.shape
    flat = torch.as_strided(w, (k * n,), (1,))  # BUG: w's own strides, and its rows are N long
    return x @ flat.reshape(n, k).t()


mix_transposed_flat = kcheck.Spec(
    name="mix_transposed_flat", kernel=_mix_read_flat, reference=torch.matmul,
    inputs=[kcheck.Tensor("M", "K", name="x"), kcheck.Tensor("K", "N", name="w")],
    dims={"M": kcheck.Dim(nominal=16, max=64), "K": kcheck.Dim(nominal=24, max=64),
          "N": kcheck.Dim(nominal=40, max=96)}, reduce=["K"], dtypes=["fp32"], seeds=1)


# -- a per-column gain broadcast along the rows of each square tile (g[:, None] for g[None, :]), its load masked at ---
# -- the columns: wrong everywhere on randn; on constant data only past the last full block of columns, where the ---
# -- masked load gives 0 (no guard is missing) -----------------------------------------------------------------------


@triton.jit
def _tile_gain_kernel(x_ptr, g_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    cmask = cols < N
    mask = (rows < M)[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    g = tl.load(g_ptr + cols, mask=cmask, other=0.0)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], x * g[:, None], mask=mask)


def _tile_gain(x: torch.Tensor, g: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    if out.numel():
        _tile_gain_kernel[(triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))](x, g, out, M, N, BLOCK=BLOCK)
    return out


tile_gain_wrong_axis = kcheck.Spec(
    name="tile_gain_wrong_axis", kernel=_tile_gain, reference=lambda x, g: x * g[None, :],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", name="gain")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=96)}, dtypes=["fp32"], seeds=1)


# -- 1 - (1 - q)^x as 1 - exp(x log(1 - q)): the subtraction cancels for a small exponent; on tiny data exp rounds to --
# -- exactly 1 and the output is exactly zeros, a no-op's output, though every randn case computes ---------------------


@triton.jit
def _escape_kernel(x_ptr, out_ptr, n, log_escape, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, 1.0 - tl.exp(x * log_escape), mask=mask)


def _escape(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    if out.numel():
        _escape_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), math.log1p(-0.002), BLOCK=256)
    return out


infection_prob_cancels = kcheck.Spec(
    name="infection_prob_cancels", kernel=_escape, reference=lambda x: -torch.expm1(x * math.log1p(-0.002)),
    inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=4096)}, dtypes=["fp32"], seeds=1)


# -- a running maximum along the rows, each program owning columns: the first row is stored before the loop, and the --
# -- loop's store is missing: one row of the output written at every size, the rest never ------------------------------


@triton.jit
def _running_max_kernel(x_ptr, out_ptr, T, C, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < C
    m = tl.load(x_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + cols, m, mask=mask)
    for t in range(1, T):
        m = tl.maximum(m, tl.load(x_ptr + t * C + cols, mask=mask, other=0.0))


def _running_max(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    T, C = x.shape
    out = torch.empty_like(x)
    if out.numel():
        _running_max_kernel[(triton.cdiv(C, 32),)](x, out, T, C, BLOCK=32)
    return out


running_max_unstored = kcheck.Spec(
    name="running_max_unstored", kernel=_running_max, reference=lambda x: torch.cummax(x, dim=0).values,
    inputs=[kcheck.Tensor("T", "C")], dims={"T": kcheck.Dim(nominal=64), "C": kcheck.Dim(nominal=48)},
    dtypes=["fp32"], seeds=1)


# -- a right kernel whose Spec's reference raises (a name misspelt): every case errs before the kernel is judged ------


def _reference_misspelt(x: torch.Tensor) -> torch.Tensor:
    return -torhc.as_tensor(x)  # type: ignore[name-defined]  # noqa: F821  (the Spec's bug: a NameError)


reference_misspelt = kcheck.Spec(
    name="reference_misspelt", kernel=torch.neg, reference=_reference_misspelt, inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=256)}, dtypes=["fp32"], seeds=1)

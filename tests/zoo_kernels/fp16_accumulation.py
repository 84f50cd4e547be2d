"""Bug class: accumulation in the input precision (fp16) instead of fp32.

Row sums over a long row (N = 65536) whose accumulator has the input's dtype: each of the BLOCK_N lanes adds
N / BLOCK_N fp16 values one after another, rounding to 11 bits at every step, and the final tree sum is in fp16
too. The result looks close (max error ~1.9 on row sums of rms ~225: under 1% of the typical magnitude, inside the
fp16 table tolerance of 1e-2 x rms), so only the baseline rule catches it: torch's own fp16 sum accumulates in fp32
(max error ~0.12, the output rounding), 15x more accurate.
``fixed_spec`` is the same Spec with the fp32 accumulator: it passes.
"""

import dataclasses

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_sum_fp16_acc_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = x_ptr + rows[:, None] * stride_m
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=x_ptr.dtype.element_ty)  # BUG: should be tl.float32
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        acc += tl.load(row_ptr + cols[None, :].to(tl.int64) * stride_n, mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def row_sum_fp32_acc_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    row_ptr = x_ptr + rows[:, None] * stride_m
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        acc += tl.load(row_ptr + cols[None, :].to(tl.int64) * stride_n, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=row_mask)


def _launch(kernel, x: torch.Tensor, BLOCK_N: int, TILE: int) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def row_sum(x: torch.Tensor, BLOCK_N: int = 256, TILE: int = 4096) -> torch.Tensor:
    return _launch(row_sum_fp16_acc_kernel, x, BLOCK_N, TILE)


def row_sum_fixed(x: torch.Tensor, BLOCK_N: int = 256, TILE: int = 4096) -> torch.Tensor:
    return _launch(row_sum_fp32_acc_kernel, x, BLOCK_N, TILE)


spec = kcheck.Spec(
    name="fp16_accumulation",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=65536)},
    dtypes=["fp16"],
    reduce=["N"],
)

fixed_spec = dataclasses.replace(spec, name="fp16_accumulation_fixed", kernel=row_sum_fixed)

BUG_CLASS = "low-precision-accumulation"

"""Spectral centroid (in bins) of each row of a spectrum: centroid = sum_k k * |X[k]| / sum_k |X[k]|, and 0 for
an all-zero row. A persistent grid of at most MAX_PROGRAMS programs strides over blocks of BLOCK_M whole rows
(BLOCK_N = next power of two >= N, BLOCK_M rows so that a tile holds about TILE elements); fp32 sums, int64 row
offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

TILE = 2048
MAX_PROGRAMS = 8  # persistent programs, each striding over row blocks


@triton.jit
def centroid_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs_m = tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < N
    bins = cols.to(tl.float32)
    for row0 in range(pid * BLOCK_M, M, nprog * BLOCK_M):
        rows = row0 + offs_m
        row_mask = rows < M
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :].to(tl.int64) * stride_n, mask=mask, other=0.0)
        a = tl.abs(x.to(tl.float32))
        total = tl.sum(a, axis=1)
        moment = tl.sum(a * bins[None, :], axis=1)
        centroid = tl.where(total != 0.0, moment / tl.where(total != 0.0, total, 1.0), 0.0)
        tl.store(out_ptr + rows, centroid.to(out_ptr.dtype.element_ty), mask=row_mask)


def spectral_centroid(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_n = triton.next_power_of_2(N)
    block_m = min(TILE // block_n, triton.next_power_of_2(M))
    programs = min(MAX_PROGRAMS, M)
    centroid_kernel[(programs,)](x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    a = x.abs()
    k = torch.arange(x.shape[-1], dtype=x.dtype, device=x.device)
    total = a.sum(-1)
    moment = (a * k).sum(-1)
    return torch.where(total != 0, moment / torch.where(total != 0, total, 1.0), 0.0)


spec = kcheck.Spec(
    name="spectral_centroid",
    kernel=spectral_centroid,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=4096, real=())},
    reduce=["N"],
)

BUG_CLASS = "kernel-raises"

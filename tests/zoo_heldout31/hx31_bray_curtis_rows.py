"""Bray-Curtis dissimilarity between paired abundance profiles (ecology), one pair of rows at a time:
bc[m] = sum_n |u[m, n] - v[m, n]| / sum_n |u[m, n] + v[m, n]|, defined as 0 for a pair of empty profiles (zero
denominator). Several rows per program, species in BLOCK_N chunks, fp32 per-lane sums, int64 row offsets, strides
honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def bray_curtis_kernel(u_ptr, v_ptr, out_ptr, M, N, s_um, s_un, s_vm, s_vn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    num = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    den = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        u = tl.load(u_ptr + rows[:, None] * s_um + cols[None, :] * s_un, mask=mask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + rows[:, None] * s_vm + cols[None, :] * s_vn, mask=mask, other=0.0).to(tl.float32)
        num += tl.abs(u - v)
        den += tl.abs(u + v)
    n = tl.sum(num, axis=1)
    d = tl.sum(den, axis=1)
    bc = n / d
    tl.store(out_ptr + rows, bc.to(out_ptr.dtype.element_ty), mask=row_mask)


def bray_curtis(u: torch.Tensor, v: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = u.shape
    out = torch.empty((M,), dtype=u.dtype, device=u.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    block_m = max(1, min(1024 // block_n, triton.next_power_of_2(M)))
    bray_curtis_kernel[(triton.cdiv(M, block_m),)](u, v, out, M, N, u.stride(0), u.stride(1), v.stride(0),
                                                  v.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    num = (u - v).abs().sum(-1)
    den = (u + v).abs().sum(-1)
    return torch.where(den != 0, num / den, torch.zeros_like(num))


spec = kcheck.Spec(
    name="hx31_bray_curtis_rows",
    kernel=bray_curtis,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="u"), kcheck.Tensor("M", "N", name="v")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)

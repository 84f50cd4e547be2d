"""Gini impurity of class-probability rows (decision-tree split scoring): g[m] = 1 - sum_n p[m, n]^2. Several rows
per program; the class axis is read in BLOCK_N chunks, a per-lane fp32 running sum of squares, summed across lanes at
the end; int64 row offsets, strides honoured, the result returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def gini_kernel(p_ptr, out_ptr, M, N, s_pm, s_pn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    num_chunks = N // BLOCK_N
    for i in range(0, num_chunks):
        cols = i * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        acc += p * p
    g = 1.0 - tl.sum(acc, axis=1)
    tl.store(out_ptr + rows, g.to(out_ptr.dtype.element_ty), mask=row_mask)


def gini_impurity(p: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = p.shape
    out = torch.empty((M,), dtype=p.dtype, device=p.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    block_m = max(1, min(2048 // block_n, triton.next_power_of_2(M)))
    gini_kernel[(triton.cdiv(M, block_m),)](p, out, M, N, p.stride(0), p.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(p: torch.Tensor) -> torch.Tensor:
    return 1.0 - (p * p).sum(-1)


spec = kcheck.Spec(
    name="hx31_gini_impurity_rows",
    kernel=gini_impurity,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)

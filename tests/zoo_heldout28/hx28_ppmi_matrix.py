"""Positive pointwise mutual information of a word-context co-occurrence count matrix (distributional semantics):

    PPMI[i, j] = max(log(c[i, j] * total / (row[i] * col[j])), 0)   where c[i, j] > 0, else 0

with row[i] = sum_j c[i, j], col[j] = sum_i c[i, j] and total = sum of all counts. Two kernels: the first reads
the counts in square BLOCK x BLOCK tiles and adds each tile's row sums and column sums to fp32 marginals with
atomics (exact: the counts are integers); the second forms PPMI elementwise. fp32 arithmetic, strides honoured,
int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def marginals_kernel(c_ptr, row_ptr, col_ptr, M, N, s_cm, s_cn, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    cols = pid_n * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    rm = rows < M
    cm = cols < N
    c = tl.load(c_ptr + rows[:, None] * s_cm + cols[None, :] * s_cn, mask=rm[:, None] & cm[None, :],
                other=0.0).to(tl.float32)
    tl.atomic_add(row_ptr + rows, tl.sum(c, axis=1), mask=rm)
    tl.atomic_add(col_ptr + cols, tl.sum(c, axis=1), mask=cm)


@triton.jit
def ppmi_kernel(c_ptr, row_ptr, col_ptr, total_ptr, out_ptr, M, N, s_cm, s_cn, s_om, s_on, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    cols = pid_n * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    rm = rows < M
    cm = cols < N
    mask = rm[:, None] & cm[None, :]
    c = tl.load(c_ptr + rows[:, None] * s_cm + cols[None, :] * s_cn, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(row_ptr + rows, mask=rm, other=1.0)
    k = tl.load(col_ptr + cols, mask=cm, other=1.0)
    total = tl.load(total_ptr)
    pos = c > 0.0
    safe_c = tl.where(pos, c, 1.0)
    pmi = tl.log(safe_c) + tl.log(total) - tl.log(r)[:, None] - tl.log(k)[None, :]
    ppmi = tl.where(pos & (pmi > 0.0), pmi, 0.0)
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, ppmi.to(out_ptr.dtype.element_ty), mask=mask)


def ppmi(counts: torch.Tensor, BLOCK: int = 32) -> torch.Tensor:
    M, N = counts.shape
    out = torch.empty((M, N), dtype=counts.dtype, device=counts.device)
    if M == 0 or N == 0:
        return out
    row = torch.zeros((M,), dtype=torch.float32, device=counts.device)
    col = torch.zeros((N,), dtype=torch.float32, device=counts.device)
    grid = (triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))
    marginals_kernel[grid](counts, row, col, M, N, counts.stride(0), counts.stride(1), BLOCK=BLOCK)
    total = row.sum(0, keepdim=True)
    ppmi_kernel[grid](counts, row, col, total, out, M, N, counts.stride(0), counts.stride(1), out.stride(0),
                      out.stride(1), BLOCK=BLOCK)
    return out


def reference(counts: torch.Tensor) -> torch.Tensor:
    r = counts.sum(1, keepdim=True)
    k = counts.sum(0, keepdim=True)
    total = counts.sum()
    pos = counts > 0
    pmi = torch.log(torch.where(pos, counts, torch.ones_like(counts))) + torch.log(total) - torch.log(r) - torch.log(k)
    return torch.where(pos & (pmi > 0), pmi, torch.zeros_like(pmi))


def cooccurrence_counts(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Small integer counts, about a third of them zero (sparse co-occurrences)."""
    M, N = ctx.dims["M"], ctx.dims["N"]
    c = ctx.randint(0, 9, (M, N)) - 3
    return c.clamp(min=0).to(ctx.dtype)


spec = kcheck.Spec(
    name="ppmi_matrix",
    kernel=ppmi,
    reference=reference,
    inputs=[kcheck.Custom(cooccurrence_counts, name="counts", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=200), "N": kcheck.Dim(nominal=150)},
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

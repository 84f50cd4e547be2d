"""Row-wise KL divergence between two distributions given as log-probabilities:
kl[m] = sum_n exp(logp[m, n]) * (logp[m, n] - logq[m, n]), fp32 accumulation, one program per block of rows
that loops over the vocabulary in BLOCK_N chunks."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def kl_div_kernel(lp_ptr, lq_ptr, out_ptr, M, N, num_chunks, stride_pm, stride_qm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for c in range(0, num_chunks):
        cols = c * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        lp = tl.load(lp_ptr + rows[:, None] * stride_pm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        lq = tl.load(lq_ptr + rows[:, None] * stride_qm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, tl.exp(lp) * (lp - lq), 0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=row_mask)


def kl_div(logp, logq, BLOCK_M=4, BLOCK_N=256):
    M, N = logp.shape
    logp, logq = logp.contiguous(), logq.contiguous()
    out = torch.empty(M, dtype=logp.dtype, device=logp.device)
    if M == 0:
        return out
    num_chunks = N // BLOCK_N
    kl_div_kernel[(triton.cdiv(M, BLOCK_M),)](logp, logq, out, M, N, num_chunks, logp.stride(0), logq.stride(0),
                                             BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(logp, logq):
    return (logp.exp() * (logp - logq)).sum(-1)


spec = kcheck.Spec(
    name="hx2_kl_div",
    kernel=kl_div,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logp"), kcheck.Tensor("M", "N", name="logq")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=1000)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 256}, {"BLOCK_M": 1, "BLOCK_N": 1024}],
)

BUG_CLASS = "tail-tile-dropped"

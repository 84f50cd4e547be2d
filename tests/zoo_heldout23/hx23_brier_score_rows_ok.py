"""Brier score of each sample of a multi-class forecast (calibration metric): with predicted scores p [M, K] and
the true class y[m], score[m] = sum_k (p[m, k] - [k == y[m]])^2.

Each program takes BLOCK_M samples and walks their K classes BLOCK_K at a time, fp32 per-lane accumulators and
one tl.sum at the end; labels are int64 class ids in [0, K). Any strides of p; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def brier_kernel(p_ptr, y_ptr, out_ptr, M, K, spm, spk, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    label = tl.load(y_ptr + rows, mask=row_mask, other=-1)
    p_row = p_ptr + rows[:, None] * spm
    acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        k = start + tl.arange(0, BLOCK_K).to(tl.int64)
        mask = row_mask[:, None] & (k < K)[None, :]
        p = tl.load(p_row + k[None, :] * spk, mask=mask, other=0.0).to(tl.float32)
        d = p - tl.where(k[None, :] == label[:, None], 1.0, 0.0)
        acc += tl.where(mask, d * d, 0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=row_mask)


def brier_score(p: torch.Tensor, labels: torch.Tensor, BLOCK_K: int = 256, BLOCK_M: int = 4) -> torch.Tensor:
    M, K = p.shape
    out = torch.empty((M,), dtype=p.dtype, device=p.device)
    if M == 0:
        return out
    brier_kernel[(triton.cdiv(M, BLOCK_M),)](p, labels, out, M, K, p.stride(0), p.stride(1), BLOCK_M=BLOCK_M,
                                             BLOCK_K=BLOCK_K)
    return out


def reference(p: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    onehot = torch.nn.functional.one_hot(labels, p.shape[1]).to(p.dtype)
    return ((p - onehot) ** 2).sum(-1)


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx23_brier_score_rows_ok",
    kernel=brier_score,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="scores"), kcheck.Index("M", high="K", name="labels")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "K": kcheck.Dim(nominal=1000, min=1, real=(37, 2880))},
    reduce=["K"],
    configs=[{"BLOCK_K": 256, "BLOCK_M": 4}, {"BLOCK_K": 64, "BLOCK_M": 16}],
)

"""Per-query precision at a score threshold (retrieval / detection metrics): for each row of N candidate scores with
boolean relevance labels, precision = #(score > threshold and relevant) / #(score > threshold). A row that predicts
nothing positive has precision 0 (scikit-learn's zero_division=0). The threshold is a mode.

One program per row loops over BLOCK_N-wide chunks counting predicted positives and true positives per lane in
fp32 (exact below 2**24), strides honoured, int64 row offsets; precision returned in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def precision_kernel(s_ptr, y_ptr, out_ptr, N, threshold, s_sm, s_sn, s_ym, s_yn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    predicted = tl.zeros([BLOCK_N], dtype=tl.float32)
    hits = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        s = tl.load(s_ptr + row * s_sm + cols * s_sn, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + row * s_ym + cols * s_yn, mask=mask, other=0) != 0
        pos = mask & (s > threshold)
        predicted += tl.where(pos, 1.0, 0.0)
        hits += tl.where(pos & y, 1.0, 0.0)
    n_pos = tl.sum(predicted, axis=0)
    n_hit = tl.sum(hits, axis=0)
    precision = n_hit / n_pos
    tl.store(out_ptr + row, precision)


def precision_at_threshold(scores: torch.Tensor, relevant: torch.Tensor, threshold: float = 0.0,
                           BLOCK_N: int = 256) -> torch.Tensor:
    M, N = scores.shape
    out = torch.empty((M,), dtype=torch.float32, device=scores.device)
    if M == 0:
        return out
    precision_kernel[(M,)](scores, relevant, out, N, float(threshold), scores.stride(0), scores.stride(1),
                           relevant.stride(0), relevant.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(scores: torch.Tensor, relevant: torch.Tensor, threshold: float = 0.0) -> torch.Tensor:
    pos = scores > threshold
    n_pos = pos.sum(-1).to(scores.dtype)
    n_hit = (pos & relevant).sum(-1).to(scores.dtype)
    return torch.where(n_pos > 0, n_hit / n_pos.clamp(min=1), torch.zeros_like(n_pos))


spec = kcheck.Spec(
    name="hx32_precision_at_threshold",
    kernel=precision_at_threshold,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="scores"), kcheck.Tensor("M", "N", dtype=torch.bool, density=0.3,
                                                                  name="relevant")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=500, real=(2880,))},
    params={"threshold": [0.0, 1.5]},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
    output_dtypes=[torch.float32],
)

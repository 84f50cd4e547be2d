"""Per-token cross-entropy loss: loss[m] = logsumexp(logits[m, :]) - logits[m, target[m]], fp32 statistics.

One program per row, two passes over the vocabulary in BLOCK_V chunks: the row maximum, then the sum of
exp(logit - max). An infinite maximum is replaced by 0 in the shift (as torch.logsumexp does), so rows holding
+-inf give +-inf, not NaN. Returns fp32 losses.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cross_entropy_kernel(x_ptr, t_ptr, loss_ptr, V, stride_m, stride_v, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_m
    m = tl.full([BLOCK_V], float("-inf"), dtype=tl.float32)
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V).to(tl.int64)
        x = tl.load(x_row + cols * stride_v, mask=cols < V, other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, x)
    row_max = tl.max(m, axis=0)
    shift = tl.where((row_max == float("inf")) | (row_max == float("-inf")), 0.0, row_max)
    s = tl.zeros([BLOCK_V], dtype=tl.float32)
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V).to(tl.int64)
        x = tl.load(x_row + cols * stride_v, mask=cols < V, other=float("-inf")).to(tl.float32)
        s += tl.exp(x - shift)
    lse = tl.log(tl.sum(s, axis=0)) + shift
    target = tl.load(t_ptr + row).to(tl.int64)
    x_t = tl.load(x_row + target * stride_v).to(tl.float32)
    tl.store(loss_ptr + row, lse - x_t)


def cross_entropy(logits, target, BLOCK_V=512):
    M, V = logits.shape
    loss = torch.empty(M, dtype=torch.float32, device=logits.device)
    if M:
        cross_entropy_kernel[(M,)](logits, target, loss, V, logits.stride(0), logits.stride(1), BLOCK_V=BLOCK_V)
    return loss


spec = kcheck.Spec(
    name="hx2_cross_entropy_ok",
    kernel=cross_entropy,
    reference=lambda x, t: torch.logsumexp(x, -1) - x.gather(1, t[:, None])[:, 0],
    inputs=[kcheck.Tensor("M", "V"), kcheck.Index("M", high="V")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "V": kcheck.Dim(nominal=1000, min=1)},
    reduce=["V"],
    configs=[{"BLOCK_V": 512}, {"BLOCK_V": 128}],
    output_dtypes=[torch.float32],
)

BUG_CLASS = None

"""Gaussian kernel density estimate of a 1-D sample, evaluated at query points.

    f(q_i) = 1 / (S h sqrt(2 pi)) * sum_j exp(-((q_i - s_j) / h)^2 / 2),   bandwidth h = BANDWIDTH

Split over both axes: each program takes BLOCK_Q queries against one BLOCK_S chunk of the sample (1-D grid over
query tiles x sample chunks) and adds its partial sums into an fp32 buffer with atomics; the launcher scales the
sums by the normalization. An empty sample gives a density of 0.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"

BANDWIDTH = 0.5


@triton.jit
def kde_kernel(q_ptr, s_ptr, acc_ptr, Q, S, n_chunks, inv_h, BLOCK_Q: tl.constexpr, BLOCK_S: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    qs = (pid // n_chunks) * BLOCK_Q + tl.arange(0, BLOCK_Q).to(tl.int64)
    ss = (pid % n_chunks) * BLOCK_S + tl.arange(0, BLOCK_S).to(tl.int64)
    qmask = qs < Q
    smask = ss < S
    q = tl.load(q_ptr + qs, mask=qmask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + ss, mask=smask, other=0.0).to(tl.float32)
    u = (q[:, None] - s[None, :]) * inv_h
    k = tl.where(smask[None, :], tl.exp(-0.5 * u * u), 0.0)
    part = tl.sum(k, axis=1)
    tl.store(acc_ptr + qs, part, mask=qmask)


def gaussian_kde(queries, samples, BLOCK_Q=64, BLOCK_S=256):
    Q, S = queries.shape[0], samples.shape[0]
    acc = torch.zeros((Q,), dtype=torch.float32, device=queries.device)
    if Q and S:
        n_chunks = triton.cdiv(S, BLOCK_S)
        kde_kernel[(triton.cdiv(Q, BLOCK_Q) * n_chunks,)](queries, samples, acc, Q, S, n_chunks, 1.0 / BANDWIDTH,
                                                          BLOCK_Q=BLOCK_Q, BLOCK_S=BLOCK_S)
    norm = 1.0 / (max(S, 1) * BANDWIDTH * math.sqrt(2.0 * math.pi))
    return (acc * norm).to(queries.dtype)


def reference(queries, samples):
    S = samples.shape[0]
    u = (queries[:, None] - samples[None, :]) / BANDWIDTH
    return torch.exp(-0.5 * u * u).sum(1) / (max(S, 1) * BANDWIDTH * math.sqrt(2.0 * math.pi))


spec = kcheck.Spec(
    name="hx22_gaussian_kde",
    kernel=gaussian_kde,
    reference=reference,
    inputs=[kcheck.Tensor("Q", name="queries"), kcheck.Tensor("S", name="samples")],
    dims={"Q": kcheck.Dim(nominal=256, real=()), "S": kcheck.Dim(nominal=2048, real=(10000,))},
    reduce=["S"],
    configs=[{"BLOCK_Q": 64, "BLOCK_S": 256}, {"BLOCK_Q": 16, "BLOCK_S": 64}],
)

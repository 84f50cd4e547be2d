"""Attention probabilities with a learned sink logit per head (as in gpt-oss): the softmax over each row of scores is
taken together with the head's sink logit, whose probability mass is then dropped:

    p[h, q, k] = exp(s[h, q, k] - m) / (exp(sink[h] - m) + sum_k' exp(s[h, q, k'] - m)),  m = max(max_k s, sink[h])

scores is [H, Q, K], sink is [H]. Each program takes BLOCK_Q query rows of one head, a row fits one block
(K <= 4096); fp32 math, output in the scores' dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def sink_softmax_kernel(s_ptr, sink_ptr, p_ptr, Q, K, n_qblocks, ssh, ssq, ssk, s_sink, sph, spq, spk,
                        BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    h = (pid // n_qblocks).to(tl.int64)
    q = (pid % n_qblocks).to(tl.int64) * BLOCK_Q + tl.arange(0, BLOCK_Q).to(tl.int64)
    k = tl.arange(0, BLOCK_K).to(tl.int64)
    mask = (q < Q)[:, None] & (k < K)[None, :]
    s = tl.load(s_ptr + h * ssh + q[:, None] * ssq + k[None, :] * ssk, mask=mask,
                other=-float("inf")).to(tl.float32)
    sink = tl.load(sink_ptr + h * s_sink).to(tl.float32)
    m = tl.maximum(tl.max(s, axis=1), sink)
    e = tl.exp(s)
    e = tl.where(mask, e, 0.0)
    denom = tl.exp(sink) + tl.sum(e, axis=1)
    p = e / denom[:, None]
    tl.store(p_ptr + h * sph + q[:, None] * spq + k[None, :] * spk, p.to(p_ptr.dtype.element_ty), mask=mask)


def sink_softmax(scores: torch.Tensor, sink: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    H, Q, K = scores.shape
    p = torch.empty((H, Q, K), dtype=scores.dtype, device=scores.device)
    if H * Q * K == 0:
        return p
    block_k = triton.next_power_of_2(K)
    block_q = max(1, min(TILE // block_k, triton.next_power_of_2(Q)))
    n_qblocks = triton.cdiv(Q, block_q)
    sink_softmax_kernel[(H * n_qblocks,)](scores, sink, p, Q, K, n_qblocks, *scores.stride(), sink.stride(0),
                                          *p.stride(), BLOCK_Q=block_q, BLOCK_K=block_k)
    return p


def reference(scores: torch.Tensor, sink: torch.Tensor) -> torch.Tensor:
    H, Q, K = scores.shape
    full = torch.cat([scores, sink[:, None, None].expand(H, Q, 1)], dim=-1)
    return torch.softmax(full, dim=-1)[..., :K]


spec = kcheck.Spec(
    name="hx19_softmax_with_sink",
    kernel=sink_softmax,
    reference=reference,
    inputs=[kcheck.Tensor("H", "Q", "K", name="scores"), kcheck.Tensor("H", name="sink")],
    dims={"H": kcheck.Dim(nominal=4, max=8, real=()), "Q": kcheck.Dim(nominal=32, real=()),
          "K": kcheck.Dim(nominal=300, max=4096, real=())},
    reduce=["K"],
    configs=[{"TILE": 4096}, {"TILE": 512}],
)

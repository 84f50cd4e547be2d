"""Per-token log-probability of the chosen token (RLHF / PPO / DPO "selective log-softmax"):
logp[t] = logits[t, label[t]] - logsumexp(logits[t, :]), without materializing the (T, V) log-softmax.
One program per token; an online pass over BLOCK_V-wide vocabulary chunks keeps a per-lane running max and
rescaled sum; the chosen logit is read directly. fp32 arithmetic, output in the logits' dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def selective_logprob_kernel(logits_ptr, labels_ptr, out_ptr, V, stride_t, stride_v, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * V
    m_lane = tl.full([BLOCK_V], -float("inf"), dtype=tl.float32)
    s_lane = tl.zeros([BLOCK_V], dtype=tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V).to(tl.int64)
        x = tl.load(base + cols * stride_v, mask=cols < V, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_lane, x, propagate_nan=tl.PropagateNan.ALL)
        dead = m_new == -float("inf")
        s_lane = s_lane * tl.where(dead, 0.0, tl.exp(m_lane - m_new)) + tl.where(dead, 0.0, tl.exp(x - m_new))
        m_lane = m_new
    m = tl.max(m_lane, axis=0)
    s = tl.sum(s_lane * tl.where(m_lane == -float("inf"), 0.0, tl.exp(m_lane - m)), axis=0)
    label = tl.load(labels_ptr + row).to(tl.int64)
    chosen = tl.load(base + label * stride_v).to(tl.float32)
    tl.store(out_ptr + row, ((chosen - m) - tl.log(s)).to(out_ptr.dtype.element_ty))


def selective_logprobs(logits: torch.Tensor, labels: torch.Tensor, BLOCK_V: int = 2048) -> torch.Tensor:
    T, V = logits.shape
    out = torch.empty((T,), dtype=logits.dtype, device=logits.device)
    if T:
        block = min(BLOCK_V, triton.next_power_of_2(V))
        selective_logprob_kernel[(T,)](logits, labels, out, V, logits.stride(0), logits.stride(1), BLOCK_V=block)
    return out


def reference(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return logits.log_softmax(-1).gather(-1, labels[:, None])[:, 0]


spec = kcheck.Spec(
    name="hx16_selective_logprobs",
    kernel=selective_logprobs,
    reference=reference,
    inputs=[kcheck.Tensor("T", "V", name="logits"), kcheck.Index("T", high="V", name="labels")],
    dims={"T": kcheck.Dim(nominal=64), "V": kcheck.Dim(nominal=1000)},
    reduce=["V"],
    configs=[{"BLOCK_V": 2048}, {"BLOCK_V": 128}],
)

"""Multi-class focal loss per sample (Lin et al., gamma = 2): loss[m] = -(1 - p_t)^2 * log p_t, where
p_t = softmax(logits[m])[target[m]]. One program per sample: a pass over the C classes in BLOCK_C chunks finds the
row's max and the sum of exp(logit - max) (online, rescaled when the max grows), then the target's log-probability
is formed in fp32. Returns the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def focal_loss_kernel(logits_ptr, target_ptr, out_ptr, C, stride_c, BLOCK_C: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    z_row = logits_ptr + row * C
    m = tl.full([BLOCK_C], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK_C], dtype=tl.float32)
    for start in range(0, C, BLOCK_C):
        cols = start + tl.arange(0, BLOCK_C)
        z = tl.load(z_row + cols * stride_c, mask=cols < C, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, z)
        alive = m_new > -float("inf")
        s = tl.where(alive, s * tl.exp(m - m_new) + tl.exp(z - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    tgt = tl.load(target_ptr + row)
    zt = tl.load(z_row + tgt * stride_c).to(tl.float32)
    logp = zt - row_max - tl.log(total)
    q = 1.0 - tl.exp(logp)
    tl.store(out_ptr + row, (-q * q * logp).to(out_ptr.dtype.element_ty))


def focal_loss(logits: torch.Tensor, target: torch.Tensor, BLOCK_C: int = 256) -> torch.Tensor:
    M, C = logits.shape
    out = torch.empty(M, dtype=logits.dtype, device=logits.device)
    if M == 0:
        return out
    block_c = min(BLOCK_C, triton.next_power_of_2(C))
    focal_loss_kernel[(M,)](logits, target, out, C, logits.stride(1), BLOCK_C=block_c)
    return out


def reference(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    logp = torch.log_softmax(logits, -1).gather(1, target[:, None])[:, 0]
    return -(1.0 - logp.exp()) ** 2 * logp


spec = kcheck.Spec(
    name="hx8_focal_loss",
    kernel=focal_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="logits"), kcheck.Index("M", high="C", name="target")],
    dims={"M": kcheck.Dim(nominal=64), "C": kcheck.Dim(nominal=1000, min=1)},
    reduce=["C"],
    configs=[{"BLOCK_C": 256}, {"BLOCK_C": 64}],
)

BUG_CLASS = "stride-assumption"

"""Per-row cross-entropy loss from logits: loss[m] = logsumexp(x[m]) - x[m, target[m]].

One program per row; an online (running max, rescaled sum) pass over BLOCK_N-wide chunks in fp32, so vocabulary
rows of any length work; the loss is returned in fp32.
"""

# GPU only: the case that shows it cannot run in the CPU interpreter.

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"
GPU_ONLY = True


@triton.jit
def _xent_kernel(x_ptr, tgt_ptr, loss_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_m
    m_lane = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    s_lane = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols * stride_n, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_lane, x)
        empty = m_new == -float("inf")
        s_lane = s_lane * tl.where(empty, 0.0, tl.exp(m_lane - m_new)) + tl.where(empty, 0.0, tl.exp(x - m_new))
        m_lane = m_new
    m = tl.max(m_lane, axis=0)
    s = tl.sum(s_lane * tl.where(m_lane == -float("inf"), 0.0, tl.exp(m_lane - m)), axis=0)
    tgt = tl.load(tgt_ptr + row)
    x_t = tl.load(x_row + tgt * stride_n).to(tl.float32)
    tl.store(loss_ptr + row, (m - x_t) + tl.log(s))


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = logits.shape
    loss = torch.empty(M, dtype=torch.float32, device=logits.device)
    if M == 0:
        return loss
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    _xent_kernel[(M,)](logits, target, loss, N, logits.stride(0), logits.stride(1), BLOCK_N=block_n)
    return loss


def reference(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(logits, target, reduction="none")


spec = kcheck.Spec(
    name="ho_cross_entropy",
    kernel=cross_entropy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Index("M", high="N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=1024, min=1, real=(2880, 32000), large=False)},
    output_dtypes=[torch.float32],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)

"""Per-row cross-entropy, `F.cross_entropy(logits, target, reduction="none")`: loss[m] = logsumexp(x[m]) -
x[m, target[m]], taken as (max - x[m, target[m]]) + log(sum of exp(x - max)) so that a large common offset
cancels exactly. Several rows per program when rows are short; the logsumexp is taken online over BLOCK_N chunks
(a running max per lane and a sum of exp(x - max) rescaled when the max grows), in fp32, so vocabularies of any
size fit."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cross_entropy_kernel(x_ptr, t_ptr, loss_ptr, M, N, stride_xm, stride_xn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    x_rows = x_ptr + rows[:, None] * stride_xm
    m_lane = tl.full([BLOCK_M, BLOCK_N], -float("inf"), dtype=tl.float32)
    s_lane = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols[None, :] < N)
        x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_lane, x, propagate_nan=tl.PropagateNan.ALL)
        dead = m_new == -float("inf")
        s_lane = s_lane * tl.where(dead, 0.0, tl.exp(m_lane - m_new)) + tl.where(dead, 0.0, tl.exp(x - m_new))
        m_lane = m_new
    m = tl.max(m_lane, axis=1)
    s = tl.sum(s_lane * tl.where(m_lane == -float("inf"), 0.0, tl.exp(m_lane - m[:, None])), axis=1)
    target = tl.load(t_ptr + rows, mask=row_mask, other=0).to(tl.int64)
    xt = tl.load(x_ptr + rows * stride_xm + target * stride_xn, mask=row_mask, other=0.0).to(tl.float32)
    tl.store(loss_ptr + rows, ((m - xt) + tl.log(s)).to(loss_ptr.dtype.element_ty), mask=row_mask)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, BLOCK_N: int = 1024, TILE: int = 4096) -> torch.Tensor:
    M, N = logits.shape
    loss = torch.empty(M, dtype=logits.dtype, device=logits.device)
    if M == 0:
        return loss
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    cross_entropy_kernel[(triton.cdiv(M, block_m),)](logits, target, loss, M, N, logits.stride(0), logits.stride(1),
                                                     BLOCK_M=block_m, BLOCK_N=block_n)
    return loss


spec = kcheck.Spec(
    name="hx3_cross_entropy_ok",
    kernel=cross_entropy,
    reference=lambda logits, target: torch.nn.functional.cross_entropy(logits, target, reduction="none"),
    inputs=[kcheck.Tensor("M", "V", name="logits"), kcheck.Index("M", high="V", name="target")],
    dims={"M": kcheck.Dim(nominal=64), "V": kcheck.Dim(nominal=4096)},
    reduce=["V"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)

BUG_CLASS = None

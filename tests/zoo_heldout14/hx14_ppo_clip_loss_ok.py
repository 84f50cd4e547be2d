"""Per-token clipped surrogate loss of PPO / GRPO fine-tuning of a language model, with its backward:

    r = exp(logp - old_logp),   loss = -min(r * A, clip(r, 1 - eps, 1 + eps) * A)

logp [M, N] are the policy's log-probabilities of the sampled tokens (differentiated), old_logp those of the
rollout policy and A [M] one advantage per sequence (GRPO's group-normalized reward); neither is differentiated.
Backward: d loss / d logp = -A * r through the unclipped term when it is the minimum, and through the clipped one
only inside the clip range; where the two terms tie (inside the range) each gets half, as torch.minimum's backward
splits it, so a NaN or an infinite advantage gives the gradient torch gives.

Forward and backward are row-block Triton kernels (BLOCK_M rows x the whole row when it fits, else column chunks)
behind a torch.autograd.Function. Computed in fp32, stored in the input dtype. min and clip are written with
comparisons so that a NaN log-probability gives a NaN loss, as torch does.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def _surrogate(lp, old, adv, eps):
    r = tl.exp(lp - old)
    rc = tl.where(r < 1.0 - eps, 1.0 - eps, tl.where(r > 1.0 + eps, 1.0 + eps, r))
    s1 = r * adv
    s2 = rc * adv
    return r, s1, s2


@triton.jit
def ppo_fwd_kernel(lp_ptr, old_ptr, adv_ptr, loss_ptr, M, N, eps, stride_lm, stride_ln, stride_om, stride_on,
                   stride_a, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    r_ok = rows < M
    adv = tl.load(adv_ptr + rows * stride_a, mask=r_ok, other=0.0).to(tl.float32)[:, None]
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask = r_ok[:, None] & (cols < N)[None, :]
        lp = tl.load(lp_ptr + rows[:, None] * stride_lm + cols[None, :] * stride_ln, mask=mask, other=0.0)
        old = tl.load(old_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, mask=mask, other=0.0)
        _, s1, s2 = _surrogate(lp.to(tl.float32), old.to(tl.float32), adv, eps)
        loss = -tl.where(s2 < s1, s2, s1)
        tl.store(loss_ptr + rows[:, None] * N + cols[None, :], loss.to(loss_ptr.dtype.element_ty), mask=mask)


@triton.jit
def ppo_bwd_kernel(g_ptr, lp_ptr, old_ptr, adv_ptr, dlp_ptr, M, N, eps, stride_gm, stride_gn, stride_lm, stride_ln,
                   stride_om, stride_on, stride_a, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    r_ok = rows < M
    adv = tl.load(adv_ptr + rows * stride_a, mask=r_ok, other=0.0).to(tl.float32)[:, None]
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask = r_ok[:, None] & (cols < N)[None, :]
        g = tl.load(g_ptr + rows[:, None] * stride_gm + cols[None, :] * stride_gn, mask=mask, other=0.0)
        lp = tl.load(lp_ptr + rows[:, None] * stride_lm + cols[None, :] * stride_ln, mask=mask, other=0.0)
        old = tl.load(old_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, mask=mask, other=0.0)
        lp = lp.to(tl.float32)
        old = old.to(tl.float32)
        r, s1, s2 = _surrogate(lp, old, adv, eps)
        inside = (r >= 1.0 - eps) & (r <= 1.0 + eps)
        # g * A * r folded into one exp: a ratio past fp32's range times a small g * A still comes out finite
        ga = g.to(tl.float32) * adv * tl.where(s1 == s2, 0.5, 1.0)
        t = tl.where(ga < 0, -1.0, 1.0) * tl.exp(tl.log(tl.abs(ga)) + (lp - old))
        d = -tl.where(s1 > s2, 0.0, t) - tl.where(inside & ~(s1 < s2), t, 0.0)
        tl.store(dlp_ptr + rows[:, None] * N + cols[None, :], d.to(dlp_ptr.dtype.element_ty), mask=mask)


def _blocks(N: int) -> tuple[int, int]:
    block_n = min(triton.next_power_of_2(max(N, 1)), 1024)
    return max(1, 4096 // block_n), block_n


class PPOClipLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, logp: torch.Tensor, old_logp: torch.Tensor, adv: torch.Tensor,
                eps: float) -> torch.Tensor:
        M, N = logp.shape
        loss = torch.empty((M, N), dtype=logp.dtype, device=logp.device)
        if M and N:
            bm, bn = _blocks(N)
            ppo_fwd_kernel[(triton.cdiv(M, bm),)](logp, old_logp, adv, loss, M, N, eps, logp.stride(0),
                                                   logp.stride(1), old_logp.stride(0), old_logp.stride(1),
                                                   adv.stride(0), BLOCK_M=bm, BLOCK_N=bn)
        ctx.save_for_backward(logp, old_logp, adv)
        ctx.eps = eps
        return loss

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:
        logp, old_logp, adv = ctx.saved_tensors
        M, N = logp.shape
        dlogp = torch.empty((M, N), dtype=logp.dtype, device=logp.device)
        if M and N:
            bm, bn = _blocks(N)
            ppo_bwd_kernel[(triton.cdiv(M, bm),)](g, logp, old_logp, adv, dlogp, M, N, ctx.eps, g.stride(0),
                                                   g.stride(1), logp.stride(0), logp.stride(1), old_logp.stride(0),
                                                   old_logp.stride(1), adv.stride(0), BLOCK_M=bm, BLOCK_N=bn)
        return dlogp, None, None, None


def ppo_clip_loss(logp: torch.Tensor, old_logp: torch.Tensor, adv: torch.Tensor, eps: float = 0.2) -> torch.Tensor:
    return PPOClipLoss.apply(logp, old_logp, adv, eps)


def reference(logp: torch.Tensor, old_logp: torch.Tensor, adv: torch.Tensor, eps: float = 0.2) -> torch.Tensor:
    r = torch.exp(logp - old_logp)
    a = adv[:, None]
    return -torch.minimum(r * a, torch.clamp(r, 1 - eps, 1 + eps) * a)


spec = kcheck.Spec(
    name="hx14_ppo_clip_loss_ok",
    kernel=ppo_clip_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logp"), kcheck.Tensor("M", "N", name="old_logp", grad=False),
            kcheck.Tensor("M", name="advantages", grad=False)],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=512)},
    params={"eps": [0.2, 0.1]},
    grad=True,
)

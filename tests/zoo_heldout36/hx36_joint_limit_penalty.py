"""Robotics: soft joint-limit penalty of a batch of configurations, sum_j relu(|q_j| - limit_j)^2 per row
(trajectory optimisation cost term). One program per BLOCK_B rows, looping over the joints in BLOCK_J chunks with
an fp32 accumulator; strides honoured, int64 row offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def joint_limit_kernel(q_ptr, lim_ptr, out_ptr, B, J, s_qb, s_qj, s_l, BLOCK_B: tl.constexpr,
                       BLOCK_J: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    row_mask = rows < B
    acc = tl.zeros([BLOCK_B], dtype=tl.float32)
    for start in range(0, J, BLOCK_J):
        cols = start + tl.arange(0, BLOCK_J).to(tl.int64)
        col_mask = cols <= J
        mask = row_mask[:, None] & col_mask[None, :]
        q = tl.load(q_ptr + rows[:, None] * s_qb + cols[None, :] * s_qj, mask=mask, other=0.0).to(tl.float32)
        lim = tl.load(lim_ptr + cols * s_l, mask=col_mask, other=0.0).to(tl.float32)
        excess = tl.abs(q) - lim[None, :]
        excess = tl.where(excess < 0.0, 0.0, excess)  # relu that keeps NaN, as torch.clamp does
        acc += tl.sum(tl.where(mask, excess * excess, 0.0), axis=1)
    tl.store(out_ptr + rows, acc.to(out_ptr.dtype.element_ty), mask=row_mask)


def joint_limit_penalty(q: torch.Tensor, lim: torch.Tensor, BLOCK_B: int = 16, BLOCK_J: int = 32) -> torch.Tensor:
    B, J = q.shape
    out = torch.empty((B,), dtype=q.dtype, device=q.device)
    if B == 0:
        return out
    joint_limit_kernel[(triton.cdiv(B, BLOCK_B),)](q, lim, out, B, J, q.stride(0), q.stride(1), lim.stride(0),
                                                  BLOCK_B=BLOCK_B, BLOCK_J=BLOCK_J)
    return out


def reference(q: torch.Tensor, lim: torch.Tensor) -> torch.Tensor:
    return torch.clamp(q.abs() - lim, min=0.0).pow(2).sum(-1)


spec = kcheck.Spec(
    name="hx36_joint_limit_penalty",
    kernel=joint_limit_penalty,
    reference=reference,
    inputs=[kcheck.Tensor("B", "J", name="q"), kcheck.Tensor("J", name="limit")],
    dims={"B": kcheck.Dim(nominal=128), "J": kcheck.Dim(nominal=48, max=4096)},
    reduce=["J"],
    configs=[{"BLOCK_B": 16, "BLOCK_J": 32}, {"BLOCK_B": 8, "BLOCK_J": 64}],
)

"""Boltzmann (softmax) policy over Q-values, as in soft Q-learning and SAC's discrete variant:
pi = softmax(Q / tau) over the A actions, and the policy's expected value V = sum_a pi_a Q_a. One program per
state; pass 1 accumulates the softmax denominator over BLOCK_A-wide chunks, pass 2 writes the probabilities and
accumulates V. fp32 arithmetic, outputs in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def boltzmann_kernel(q_ptr, p_ptr, v_ptr, A, s_qb, s_qa, s_pb, s_pa, inv_tau, BLOCK_A: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    q_row = q_ptr + row * s_qb
    p_row = p_ptr + row * s_pb
    s_lane = tl.zeros([BLOCK_A], dtype=tl.float32)
    for start in range(0, A, BLOCK_A):
        cols = start + tl.arange(0, BLOCK_A).to(tl.int64)
        z = tl.load(q_row + cols * s_qa, mask=cols < A, other=-float("inf")).to(tl.float32) * inv_tau
        s_lane += tl.exp(z)
    s = tl.sum(s_lane, axis=0)
    inv = 1.0 / s
    v = tl.zeros([BLOCK_A], dtype=tl.float32)
    for start in range(0, A, BLOCK_A):
        cols = start + tl.arange(0, BLOCK_A).to(tl.int64)
        mask = cols < A
        q = tl.load(q_row + cols * s_qa, mask=mask, other=0.0).to(tl.float32)
        p = tl.exp(q * inv_tau) * inv
        tl.store(p_row + cols * s_pa, p.to(p_ptr.dtype.element_ty), mask=mask)
        v += tl.where(mask, p * q, 0.0)
    tl.store(v_ptr + row, tl.sum(v, axis=0).to(v_ptr.dtype.element_ty))


def boltzmann_policy(q: torch.Tensor, tau: float, BLOCK_A: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    B, A = q.shape
    p = torch.empty((B, A), dtype=q.dtype, device=q.device)
    v = torch.empty((B,), dtype=q.dtype, device=q.device)
    if B == 0:
        return p, v
    if A == 0:
        return p, v.zero_()
    block = min(BLOCK_A, triton.next_power_of_2(A))
    boltzmann_kernel[(B,)](q, p, v, A, q.stride(0), q.stride(1), p.stride(0), p.stride(1), 1.0 / tau,
                           BLOCK_A=block)
    return p, v


def reference(q: torch.Tensor, tau: float) -> tuple[torch.Tensor, torch.Tensor]:
    p = torch.softmax(q / tau, dim=-1)
    return p, (p * q).sum(-1)


spec = kcheck.Spec(
    name="hx16_boltzmann_policy",
    kernel=boltzmann_policy,
    reference=reference,
    inputs=[kcheck.Tensor("B", "A", name="q_values")],
    dims={"B": kcheck.Dim(nominal=64), "A": kcheck.Dim(nominal=18)},
    reduce=["A"],
    params={"tau": [1.0, 0.1]},
    configs=[{"BLOCK_A": 1024}, {"BLOCK_A": 16}],
)

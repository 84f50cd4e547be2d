"""Generalized Advantage Estimation (PPO's advantage), a reverse scan over time per environment:
delta_t = r_t + gamma * v_{t+1} - v_t (v_T = the bootstrap value), A_t = delta_t + gamma * lam * A_{t+1}.
Each program owns BLOCK_B environments and walks t from T-1 down to 0 carrying (A_{t+1}, v_{t+1}) in fp32;
rewards and values are (B, T) with any strides; the advantages come back in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def gae_kernel(r_ptr, v_ptr, boot_ptr, adv_ptr, B, T, s_rb, s_rt, s_vb, s_vt, s_ab, s_at, gamma, lam,
               BLOCK_B: tl.constexpr):
    envs = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    m = envs < B
    next_v = tl.load(boot_ptr + envs, mask=m, other=0.0).to(tl.float32)
    carry = tl.zeros([BLOCK_B], dtype=tl.float32)
    for i in range(0, T):
        t = T - 1 - i
        r = tl.load(r_ptr + envs * s_rb + t * s_rt, mask=m, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + envs * s_vb + t * s_vt, mask=m, other=0.0).to(tl.float32)
        carry = r + gamma * next_v - v + gamma * lam * carry
        tl.store(adv_ptr + envs * s_ab + t * s_at, carry.to(adv_ptr.dtype.element_ty), mask=m)
        next_v = v


def gae(rewards: torch.Tensor, values: torch.Tensor, bootstrap: torch.Tensor, gamma: float, lam: float,
        BLOCK_B: int = 32) -> torch.Tensor:
    B, T = rewards.shape
    adv = torch.empty((B, T), dtype=rewards.dtype, device=rewards.device)
    if B and T:
        gae_kernel[(triton.cdiv(B, BLOCK_B),)](rewards, values, bootstrap, adv, B, T, rewards.stride(0),
                                               rewards.stride(1), values.stride(0), values.stride(1), adv.stride(0),
                                               adv.stride(1), gamma, lam, BLOCK_B=BLOCK_B)
    return adv


def reference(rewards, values, bootstrap, gamma, lam):
    B, T = rewards.shape
    adv = torch.empty_like(rewards)
    carry = torch.zeros_like(bootstrap)
    next_v = bootstrap
    for t in range(T - 1, -1, -1):
        carry = rewards[:, t] + gamma * next_v - values[:, t] + gamma * lam * carry
        adv[:, t] = carry
        next_v = values[:, t]
    return adv


spec = kcheck.Spec(
    name="hx16_gae_advantages_ok",
    kernel=gae,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", name="rewards"), kcheck.Tensor("B", "T", name="values"),
            kcheck.Tensor("B", name="bootstrap")],
    dims={"B": kcheck.Dim(nominal=64), "T": kcheck.Dim(nominal=128, real=(37, 300))},
    reduce=["T"],
    params={"gamma": [0.99], "lam": [0.95, 1.0]},
    configs=[{"BLOCK_B": 32}, {"BLOCK_B": 4}],
)

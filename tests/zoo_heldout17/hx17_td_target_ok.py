"""One-step TD targets for Q-learning / DQN (reinforcement learning).

r [B] rewards, done [B] episode-end flags, q_next [B, A] target-network action values at the next state:
target[b] = r[b] + gamma * max_a q_next[b, a], or r[b] where done[b]. NaN values are ignored by the max, as a GPU
max does. One program per BLOCK_B transitions; the action axis is one block of next_power_of_2(A) lanes;
gamma is a mode.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def td_target_kernel(r_ptr, done_ptr, q_ptr, out_ptr, B, A, stride_qb, stride_qa, stride_r, stride_d, gamma,
                     BLOCK_B: tl.constexpr, BLOCK_A: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    cols = tl.arange(0, BLOCK_A)
    rmask = rows < B
    mask = rmask[:, None] & (cols < A)[None, :]
    q = tl.load(q_ptr + rows[:, None] * stride_qb + cols[None, :] * stride_qa, mask=mask,
                other=float("-inf")).to(tl.float32)
    q_max = tl.max(q, axis=1)
    r = tl.load(r_ptr + rows * stride_r, mask=rmask, other=0.0).to(tl.float32)
    done = tl.load(done_ptr + rows * stride_d, mask=rmask, other=1)
    target = tl.where(done != 0, r, r + gamma * q_max)
    tl.store(out_ptr + rows, target.to(out_ptr.dtype.element_ty), mask=rmask)


def td_target(r, done, q_next, gamma=0.99, BLOCK_B=16):
    B, A = q_next.shape
    out = torch.empty((B,), dtype=r.dtype, device=r.device)
    if B and A:
        block_a = triton.next_power_of_2(A)
        td_target_kernel[(triton.cdiv(B, BLOCK_B),)](r, done, q_next, out, B, A, q_next.stride(0), q_next.stride(1),
                                                      r.stride(0), done.stride(0), gamma, BLOCK_B=BLOCK_B,
                                                      BLOCK_A=block_a)
    return out


def reference(r, done, q_next, gamma=0.99):
    q_max = q_next.masked_fill(torch.isnan(q_next), float("-inf")).amax(dim=1)
    return torch.where(done, r, r + gamma * q_max)


spec = kcheck.Spec(
    name="hx17_td_target_ok",
    kernel=td_target,
    reference=reference,
    inputs=[kcheck.Tensor("B", name="reward"), kcheck.Tensor("B", dtype=torch.bool, density=0.1, name="done"),
            kcheck.Tensor("B", "A", name="q_next")],
    dims={"B": kcheck.Dim(nominal=256), "A": kcheck.Dim(nominal=18, min=1, max=1024)},
    params={"gamma": [0.99, 0.9]},
    configs=[{"BLOCK_B": 16}, {"BLOCK_B": 64}],
)

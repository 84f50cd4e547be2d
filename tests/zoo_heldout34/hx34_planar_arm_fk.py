"""Forward kinematics of a planar serial arm: the end-effector position for a batch of joint configurations.

Joint j turns link j by q[b, j] relative to link j - 1, so link j points along phi_j = q_0 + ... + q_j and the tip
lies at x = sum_j l_j cos(phi_j), y = sum_j l_j sin(phi_j). One program takes BLOCK_B configurations with all J joints
in one tile (J <= 64), in fp32. The link directions are composed as rotations, (cos phi_j, sin phi_j) the running
product of the unit complex numbers (cos q_k, sin q_k), never as cos of a summed angle: a sum of many large joint
angles rounds in fp32 (ulp(300) = 3e-5 rad) where a product of exact rotations does not.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def _compose(c1, s1, c2, s2):
    return c1 * c2 - s1 * s2, s1 * c2 + c1 * s2


@triton.jit
def planar_fk_kernel(q_ptr, l_ptr, out_ptr, B, J, s_qb, s_qj, s_l, s_ob, s_oc,
                     BLOCK_B: tl.constexpr, BLOCK_J: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    joints = tl.arange(0, BLOCK_J)
    rmask = rows < B
    jmask = joints < J
    mask = rmask[:, None] & jmask[None, :]
    q = tl.load(q_ptr + rows[:, None] * s_qb + joints[None, :] * s_qj, mask=mask, other=0.0).to(tl.float32)
    lengths = tl.load(l_ptr + joints * s_l).to(tl.float32)
    c, s = tl.associative_scan((tl.cos(q), tl.sin(q)), axis=1, combine_fn=_compose)
    x = tl.sum(lengths[None, :] * c, axis=1)
    y = tl.sum(lengths[None, :] * s, axis=1)
    tl.store(out_ptr + rows * s_ob, x.to(out_ptr.dtype.element_ty), mask=rmask)
    tl.store(out_ptr + rows * s_ob + s_oc, y.to(out_ptr.dtype.element_ty), mask=rmask)


def planar_fk(q: torch.Tensor, lengths: torch.Tensor, TILE: int = 1024) -> torch.Tensor:
    B, J = q.shape
    out = torch.empty((B, 2), dtype=q.dtype, device=q.device)
    if B == 0:
        return out
    if J == 0:
        return out.zero_()
    block_j = triton.next_power_of_2(J)
    block_b = max(1, min(TILE // block_j, triton.next_power_of_2(B)))
    planar_fk_kernel[(triton.cdiv(B, block_b),)](q, lengths, out, B, J, q.stride(0), q.stride(1), lengths.stride(0),
                                                 out.stride(0), out.stride(1), BLOCK_B=block_b, BLOCK_J=block_j)
    return out


def reference(q: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    phi = torch.cumsum(q, dim=1)
    return torch.stack(((lengths * torch.cos(phi)).sum(1), (lengths * torch.sin(phi)).sum(1)), dim=1)


spec = kcheck.Spec(
    name="planar_arm_fk",
    kernel=planar_fk,
    reference=reference,
    inputs=[kcheck.Tensor("B", "J", name="q"), kcheck.Tensor("J", pattern="randn", name="lengths")],
    dims={"B": kcheck.Dim(nominal=256, real=()), "J": kcheck.Dim(nominal=7, max=64, real=())},
    reduce=["J"],
    configs=[{"TILE": 1024}, {"TILE": 128}],
)

"""Full-state feedback control law for a batch of plants (control engineering, e.g. an LQR gain): with x the
[B, S] measured states, x_ref the [S] set point and K the [A, S] gain matrix,

    u[b, a] = -sum_s K[a, s] (x[b, s] - x_ref[s])

Each program computes the A actuator commands of BLOCK_B plants, walking the S states one at a time (a rank-1
update of the [BLOCK_B, BLOCK_A] tile per state: A and S are small, tens at most, too small for tl.dot), in fp32.
int64 offsets; every operand's strides are honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def feedback_kernel(x_ptr, ref_ptr, k_ptr, u_ptr, B, S, A, s_xb, s_xs, s_ref, s_ka, s_ks, s_ub, s_ua,
                    BLOCK_B: tl.constexpr, BLOCK_A: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rb = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    ra = tl.arange(0, BLOCK_A).to(tl.int64)
    b_mask = rb < B
    a_mask = ra < A
    acc = tl.zeros([BLOCK_B, BLOCK_A], dtype=tl.float32)
    for s in range(0, S):
        xs = tl.load(x_ptr + rb * s_xb + s * s_xs, mask=b_mask, other=0.0).to(tl.float32)
        r = tl.load(ref_ptr + s * s_ref).to(tl.float32)
        ks = tl.load(k_ptr + ra * s_ka + s * s_ks, mask=a_mask, other=0.0).to(tl.float32)
        acc += (xs - r)[:, None] * ks[None, :]
    tl.store(u_ptr + rb[:, None] * s_ub + ra[None, :] * s_ua, (-acc).to(u_ptr.dtype.element_ty),
             mask=b_mask[:, None] & a_mask[None, :])


def state_feedback_control(x: torch.Tensor, x_ref: torch.Tensor, gain: torch.Tensor,
                           BLOCK_B: int = 64) -> torch.Tensor:
    B, S = x.shape
    A = gain.shape[0]
    u = torch.empty((B, A), dtype=x.dtype, device=x.device)
    if B == 0 or A == 0:
        return u
    block_a = triton.next_power_of_2(A)
    block_b = max(1, min(BLOCK_B, 4096 // block_a))
    feedback_kernel[(triton.cdiv(B, block_b),)](x, x_ref, gain, u, B, S, A, S, 1,
                                               x_ref.stride(0), gain.stride(0), gain.stride(1), u.stride(0),
                                               u.stride(1), BLOCK_B=block_b, BLOCK_A=block_a)
    return u


def reference(x: torch.Tensor, x_ref: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    return -(x - x_ref) @ gain.T


spec = kcheck.Spec(
    name="hx37_state_feedback_control",
    kernel=state_feedback_control,
    reference=reference,
    inputs=[kcheck.Tensor("B", "S", name="x"), kcheck.Tensor("S", name="x_ref"), kcheck.Tensor("A", "S", name="K")],
    dims={"B": kcheck.Dim(nominal=500), "S": kcheck.Dim(nominal=12, max=256), "A": kcheck.Dim(nominal=4, max=256)},
    reduce=["S"],
    configs=[{"BLOCK_B": 64}, {"BLOCK_B": 16}],
)

"""Open-channel discharge by Chezy's formula, Q = C * A * sqrt(R) * sqrt(S), per reach and time step.

A (wetted area), R (hydraulic radius) and S (energy slope) are [M, N] tensors of any strides; C is the Chezy
coefficient (a mode). 2-D tiles of BLOCK_M x BLOCK_N, computed in fp32, stored in the input dtype; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def chezy_kernel(a_ptr, r_ptr, s_ptr, q_ptr, M, N, chezy_c,
                 s_am, s_an, s_rm, s_rn, s_sm, s_sn, s_qm, s_qn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    area = tl.load(a_ptr + rows[:, None] * s_am + cols[None, :] * s_an, mask=mask, other=0.0).to(tl.float32)
    radius = tl.load(r_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=0.0).to(tl.float32)
    slope = tl.load(s_ptr + rows[:, None] * s_sm + cols[None, :] * s_sn).to(tl.float32)
    q = chezy_c * area * tl.sqrt(radius) * tl.sqrt(slope)
    tl.store(q_ptr + rows[:, None] * s_qm + cols[None, :] * s_qn, q.to(q_ptr.dtype.element_ty), mask=mask)


def chezy_discharge(area, radius, slope, chezy_c=50.0, BLOCK_M=16, BLOCK_N=64):
    M, N = area.shape
    q = torch.empty((M, N), dtype=area.dtype, device=area.device)
    if M == 0 or N == 0:
        return q
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    chezy_kernel[grid](area, radius, slope, q, M, N, float(chezy_c),
                       area.stride(0), area.stride(1), radius.stride(0), radius.stride(1),
                       slope.stride(0), slope.stride(1), q.stride(0), q.stride(1),
                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return q


def reference(area, radius, slope, chezy_c=50.0):
    return chezy_c * area * torch.sqrt(radius) * torch.sqrt(slope)


spec = kcheck.Spec(
    name="chezy_discharge",
    kernel=chezy_discharge,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="area"), kcheck.Tensor("M", "N", name="radius"),
            kcheck.Tensor("M", "N", name="slope")],
    params={"chezy_c": [50.0, 30.0]},
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=200)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 8, "BLOCK_N": 32}],
)

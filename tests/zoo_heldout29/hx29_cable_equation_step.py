"""Passive cable equation for dendrites (neuroscience), explicit Euler in time: for each neuron (row) of compartments
V[0..N-1], one step is V' = V + r (V[i-1] - 2 V[i] + V[i+1]) - leak * V with sealed ends (no axial current through
the tips: V[-1] = V[0], V[N] = V[N-1]); r = D dt / dx^2 (<= 1/2 for stability) and leak = dt / tau.

The launcher copies V into an fp32 buffer and runs `steps` launches, each reading one buffer and writing the other
(ping-pong), so that every compartment's neighbours are read at the same time level. Each program takes a
BLOCK_M x BLOCK_N tile; row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"
R = 0.25
LEAK = 0.02


@triton.jit
def cable_kernel(cur_ptr, nxt_ptr, M, N, stride, r, leak, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    left = tl.maximum(cols - 1, 0)
    right = tl.minimum(cols + 1, N - 1)
    row = cur_ptr + rows[:, None] * stride
    v = tl.load(row + cols[None, :], mask=mask, other=0.0)
    vl = tl.load(row + left[None, :], mask=mask, other=0.0)
    vr = tl.load(row + right[None, :], mask=mask, other=0.0)
    new = v + r * (vl - 2.0 * v + vr) - leak * v
    tl.store(nxt_ptr + rows[:, None] * stride + cols[None, :], new, mask=mask)


def cable_steps(v: torch.Tensor, steps: int = 4, BLOCK_M: int = 8, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = v.shape
    cur = torch.empty((M, N), dtype=torch.float32, device=v.device)
    cur.copy_(v)
    if M == 0 or N == 0:
        return cur.to(v.dtype)
    nxt = cur
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    for _ in range(steps):
        cable_kernel[grid](cur, nxt, M, N, cur.stride(0), R, LEAK, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        cur, nxt = nxt, cur
    return cur.to(v.dtype)


def reference(v: torch.Tensor, steps: int = 4) -> torch.Tensor:
    for _ in range(steps):
        left = torch.cat([v[:, :1], v[:, :-1]], dim=1)
        right = torch.cat([v[:, 1:], v[:, -1:]], dim=1)
        v = v + R * (left - 2.0 * v + right) - LEAK * v
    return v


spec = kcheck.Spec(
    name="cable_equation_step",
    kernel=cable_steps,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="v")],
    # column tiles are grid axis 1 (at most 65535 on a GPU): N stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=40), "N": kcheck.Dim(nominal=300, large=False)},
    params={"steps": [4, 1]},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 16, "BLOCK_N": 32}],
)

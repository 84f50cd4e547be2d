"""Constant-power stereo panning of mono tracks: left = x * cos(theta), right = x * sin(theta), with
theta = (p + 1) * pi / 4 for the track's pan position p clamped to [-1, 1] (-1 hard left, 0 centre at -3 dB, 1 hard
right), so that left^2 + right^2 = x^2 at every position. The left gain is computed as sin((1 - p) * pi / 4), the
same function mirrored, so that a hard-panned track has an exact 0 in the silent channel.

x is [tracks, samples]; each program takes BLOCK_M tracks and walks their samples BLOCK_N at a time. The pan gains
are computed once per track in fp32; row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def pan_kernel(x_ptr, pan_ptr, left_ptr, right_ptr, M, N, s_xm, s_xn, s_p, s_lm, s_ln, s_rm, s_rn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    p = tl.load(pan_ptr + rows * s_p).to(tl.float32)
    p = tl.where(p < -1.0, -1.0, tl.where(p > 1.0, 1.0, p))  # keeps NaN
    g_left = tl.sin((1.0 - p) * 0.7853981633974483)[:, None]
    g_right = tl.sin((1.0 + p) * 0.7853981633974483)[:, None]
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(left_ptr + rows[:, None] * s_lm + cols[None, :] * s_ln,
                 (x * g_left).to(left_ptr.dtype.element_ty), mask=mask)
        tl.store(right_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn,
                 (x * g_right).to(right_ptr.dtype.element_ty), mask=mask)


def constant_power_pan(x: torch.Tensor, pan: torch.Tensor, BLOCK_M: int = 8,
                       BLOCK_N: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    left = torch.empty((M, N), dtype=x.dtype, device=x.device)
    right = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return left, right
    pan_kernel[(triton.cdiv(M, BLOCK_M),)](
        x, pan, left, right, M, N, x.stride(0), x.stride(1), pan.stride(0), left.stride(0), left.stride(1),
        right.stride(0), right.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return left, right


def reference(x: torch.Tensor, pan: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    p = pan.clamp(-1.0, 1.0)
    return x * torch.sin((1.0 - p) * (torch.pi / 4))[:, None], x * torch.sin((1.0 + p) * (torch.pi / 4))[:, None]


spec = kcheck.Spec(
    name="constant_power_pan",
    kernel=constant_power_pan,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="tracks"), kcheck.Tensor("M", name="pan")],
    dims={"M": kcheck.Dim(nominal=60), "N": kcheck.Dim(nominal=500)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 16, "BLOCK_N": 64}],
)

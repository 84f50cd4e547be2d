"""Gain computer of a dynamic range compressor with a soft knee (Giannoulis, Massberg and Reiss 2012): for each
input level x in dB (channels x frames), the static curve

    y = x                                              where 2 (x - T) < -W
    y = x + (1 / R - 1) (x - T + W / 2)^2 / (2 W)      where 2 |x - T| <= W
    y = T + (x - T) / R                                where 2 (x - T) > W

with threshold T (dB), ratio R and knee width W (dB), and the gain to apply is y - x (dB, <= 0). Continuous with its
first derivative at both ends of the knee.

[BLOCK_M, BLOCK_N] tiles on a 2-D grid (channel blocks on axis 0, frame blocks on axis 1), strides passed explicitly,
int64 offsets, fp32 inside.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def knee_gain_kernel(x_ptr, out_ptr, M, N, threshold, ratio, knee, s_xm, s_xn, s_om, s_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    over = x - threshold
    slope = 1.0 / ratio - 1.0
    k = over + 0.5 * knee
    in_knee = slope * k * k / (2.0 * knee)
    above = slope * over
    gain = tl.where(2.0 * over > knee, above, tl.where(2.0 * over < -knee, 0.0, in_knee))
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, gain.to(out_ptr.dtype.element_ty), mask=mask)


def knee_gain(x: torch.Tensor, threshold: float, ratio: float, knee: float, BLOCK_M: int = 8,
              BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    knee_gain_kernel[grid](x, out, M, N, float(threshold), float(ratio), float(knee), x.stride(0), x.stride(1),
                           out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, threshold: float, ratio: float, knee: float) -> torch.Tensor:
    over = x - threshold  # y - x in each region of the curve
    gain = torch.where(2 * over < -knee, torch.zeros_like(x), (1 / ratio - 1) * (over + knee / 2) ** 2 / (2 * knee))
    return torch.where(2 * over > knee, (1 / ratio - 1) * over, gain)


spec = kcheck.Spec(
    name="hx32_soft_knee_gain",
    kernel=knee_gain,
    reference=reference,
    inputs=[kcheck.Tensor("C", "T", name="level_db"), kcheck.Scalar(-1.0, name="threshold"),
            kcheck.Scalar(4.0, name="ratio"), kcheck.Scalar(2.0, name="knee")],
    dims={"C": kcheck.Dim(nominal=16, real=()), "T": kcheck.Dim(nominal=512, real=())},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)

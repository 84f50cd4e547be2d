"""Equal-power crossfade from clip a to clip b over T samples, per channel (audio editing transition).

    u = t / (T - 1);   y[c, t] = a[c, t] * sin(pi/2 * (1 - u)) + b[c, t] * sin(pi/2 * u)

The squared gains sum to 1 (constant perceived loudness through the fade); written as two sines, each gain is
exactly 0 at its end of the fade. A one-sample fade is just a. Channels
x samples tiles [BLOCK_C, BLOCK_T] on a 1-D grid of tiles, fp32 gains, int64 offsets, each tensor's strides
honoured.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"

HALF_PI = 0.5 * math.pi


@triton.jit
def crossfade_kernel(a_ptr, b_ptr, y_ptr, C, T, sac, sat, sbc, sbt, syc, syt, denom, half_pi, n_tiles_t,
                     BLOCK_C: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = (pid // n_tiles_t) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    cols = (pid % n_tiles_t) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    mask = (rows < C)[:, None] & (cols < T)[None, :]
    u = cols.to(tl.float32) / denom
    ga = tl.sin(half_pi * (1.0 - u))
    gb = tl.sin(half_pi * u)
    a = tl.load(a_ptr + rows[:, None] * sac + cols[None, :] * sat, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rows[:, None] * T + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    y = a * ga[None, :] + b * gb[None, :]
    tl.store(y_ptr + rows[:, None] * syc + cols[None, :] * syt, y.to(y_ptr.dtype.element_ty), mask=mask)


def crossfade(a, b, BLOCK_C=2, BLOCK_T=512):
    C, T = a.shape
    y = torch.empty((C, T), dtype=a.dtype, device=a.device)
    if C == 0 or T == 0:
        return y
    n_tiles_t = triton.cdiv(T, BLOCK_T)
    crossfade_kernel[(triton.cdiv(C, BLOCK_C) * n_tiles_t,)](
        a, b, y, C, T, a.stride(0), a.stride(1), b.stride(0), b.stride(1), y.stride(0), y.stride(1),
        float(max(T - 1, 1)), HALF_PI, n_tiles_t, BLOCK_C=BLOCK_C, BLOCK_T=BLOCK_T)
    return y


def reference(a, b):
    T = a.shape[1]
    u = torch.arange(T, dtype=torch.float64, device=a.device) / max(T - 1, 1)
    return a * torch.sin(HALF_PI * (1 - u)).to(a.dtype) + b * torch.sin(HALF_PI * u).to(a.dtype)


spec = kcheck.Spec(
    name="hx22_equal_power_crossfade",
    kernel=crossfade,
    reference=reference,
    inputs=[kcheck.Tensor("C", "T", name="a"), kcheck.Tensor("C", "T", name="b")],
    dims={"C": kcheck.Dim(nominal=2, max=8, real=()), "T": kcheck.Dim(nominal=4800, real=(48000,))},
    configs=[{"BLOCK_C": 2, "BLOCK_T": 512}, {"BLOCK_C": 8, "BLOCK_T": 64}],
)

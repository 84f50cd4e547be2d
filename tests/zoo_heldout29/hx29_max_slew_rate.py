"""Peak slew rate of sampled signals: out[m] = fs * max_i |x[m, i + 1] - x[m, i]| (0 for a single sample), the
steepest step of each trace, e.g. of an amplifier's output or a sensor channel, in units per second.

Each program takes BLOCK_M traces and walks their samples BLOCK_N at a time; a lane holds the largest step it has
seen, and a lane that met NaN marks the trace NaN (a GPU's max would drop it). Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def slew_kernel(x_ptr, out_ptr, M, N, fs, s_xm, s_xn, s_o, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * s_xm
    peak = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    bad = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.int32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]  # a step needs the next sample
        a = tl.load(x_row + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(x_row + (cols + 1)[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        step = tl.abs(b - a)
        bad = tl.where(step != step, 1, bad)
        peak = tl.maximum(peak, step)
    slew = tl.max(peak, axis=1) * fs
    slew = tl.where(tl.max(bad, axis=1) > 0, float("nan"), slew)
    tl.store(out_ptr + rows * s_o, slew.to(out_ptr.dtype.element_ty), mask=row_mask)


def max_slew_rate(x: torch.Tensor, fs: float, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_m = 8
    slew_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, fs, x.stride(0), x.stride(1), out.stride(0),
                                            BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, fs: float) -> torch.Tensor:
    steps = (x[:, 1:] - x[:, :-1]).abs()
    return torch.cat([steps, x.new_zeros(x.shape[0], 1)], dim=1).amax(dim=1) * fs


spec = kcheck.Spec(
    name="max_slew_rate",
    kernel=max_slew_rate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Scalar(1000.0, name="fs")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=400)},
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)

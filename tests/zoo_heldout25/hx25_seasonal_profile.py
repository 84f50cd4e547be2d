"""Seasonal profile of time series: for each row of x [M, N] (one series per row, N samples) and a period P (a
mode: 24 hourly samples a day, 7 days a week), profile[m, p] = mean of x[m, p], x[m, p + P], x[m, p + 2P], ...
over the complete and partial cycles (0 where the series is shorter than p + 1). One program per BLOCK_M series
walks the cycles with a [BLOCK_M, BLOCK_P] tile (BLOCK_P = the period rounded up to a power of two), accumulating
in fp32; strides passed explicitly, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def seasonal_profile_kernel(x_ptr, out_ptr, M, N, P, s_xm, s_xn, s_om, s_op,
                            BLOCK_M: tl.constexpr, BLOCK_P: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    phase = tl.arange(0, BLOCK_P).to(tl.int64)
    row_mask = rows < M
    p_mask = phase < P
    acc = tl.zeros([BLOCK_M, BLOCK_P], dtype=x_ptr.dtype.element_ty)
    for c0 in range(0, N, P):
        n = c0 + phase
        mask = row_mask[:, None] & (p_mask & (n < N))[None, :]
        acc += tl.load(x_ptr + rows[:, None] * s_xm + n[None, :] * s_xn, mask=mask, other=0.0)
    count = tl.where(phase < N, (N - 1 - phase) // P + 1, 0).to(tl.float32)
    mean = acc / tl.maximum(count, 1.0)[None, :]
    tl.store(out_ptr + rows[:, None] * s_om + phase[None, :] * s_op, mean.to(out_ptr.dtype.element_ty),
             mask=row_mask[:, None] & p_mask[None, :])


def seasonal_profile(x, period=24, BLOCK_M=16):
    M, N = x.shape
    out = torch.empty((M, period), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_p = triton.next_power_of_2(period)
    seasonal_profile_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, period, x.stride(0), x.stride(1),
                                                         out.stride(0), out.stride(1),
                                                         BLOCK_M=BLOCK_M, BLOCK_P=block_p)
    return out


def reference(x, period=24):
    M, N = x.shape
    cycles = -(-N // period)
    padded = torch.zeros((M, cycles * period), dtype=x.dtype, device=x.device)
    padded[:, :N] = x
    sums = padded.reshape(M, cycles, period).sum(1)
    p = torch.arange(period, device=x.device)
    counts = torch.where(p < N, (N - 1 - p) // period + 1, 0)
    return sums / counts.clamp(min=1).to(x.dtype)


spec = kcheck.Spec(
    name="hx25_seasonal_profile",
    kernel=seasonal_profile,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    params={"period": [24, 7]},
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=2000)},
    reduce=["N"],
    configs=[{"BLOCK_M": 16}, {"BLOCK_M": 4}],
)

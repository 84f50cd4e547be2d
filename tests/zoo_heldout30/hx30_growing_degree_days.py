"""Growing degree days (agrometeorology): for each station (row) the season's sum over days of the daily mean
temperature above a base temperature,

    GDD = sum_d max((tmax[d] + tmin[d]) / 2 - t_base, 0)

Each program takes BLOCK_M stations and walks the days in BLOCK_N chunks, keeping one fp32 running total per station
(the per-chunk sums added to it); int64 row offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def gdd_kernel(tmax_ptr, tmin_ptr, out_ptr, M, N, t_base, stride_am, stride_an, stride_bm, stride_bn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    total = tl.zeros([BLOCK_M], dtype=tmax_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        hi = tl.load(tmax_ptr + rows[:, None] * stride_am + cols[None, :] * stride_an, mask=mask, other=0.0)
        lo = tl.load(tmin_ptr + rows[:, None] * stride_bm + cols[None, :] * stride_bn, mask=mask, other=0.0)
        excess = 0.5 * (hi.to(tl.float32) + lo.to(tl.float32)) - t_base
        day = tl.where(mask, tl.where(excess <= 0.0, 0.0, excess), 0.0)  # NaN (a missing day) propagates
        total += tl.sum(day, axis=1).to(total.dtype)
    tl.store(out_ptr + rows, total.to(out_ptr.dtype.element_ty), mask=row_mask)


def growing_degree_days(tmax: torch.Tensor, tmin: torch.Tensor, t_base: float = 0.0, BLOCK_M: int = 8,
                        BLOCK_N: int = 128) -> torch.Tensor:
    M, N = tmax.shape
    out = torch.empty((M,), dtype=tmax.dtype, device=tmax.device)
    if M == 0:
        return out
    gdd_kernel[(triton.cdiv(M, BLOCK_M),)](tmax, tmin, out, M, N, t_base, tmax.stride(0), tmax.stride(1),
                                           tmin.stride(0), tmin.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(tmax: torch.Tensor, tmin: torch.Tensor, t_base: float = 0.0) -> torch.Tensor:
    return (0.5 * (tmax + tmin) - t_base).clamp_min(0.0).sum(-1)


spec = kcheck.Spec(
    name="hx30_growing_degree_days",
    kernel=growing_degree_days,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="tmax"), kcheck.Tensor("M", "N", name="tmin")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=8192, real=())},
    reduce=["N"],
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 256}],
    params={"t_base": [0.0, 0.5]},
)

"""Two-sided tabular CUSUM control chart (statistical process control, Page 1954).

For each standardized measurement series x (one row: the deviation from target in units of sigma), the upper and
lower cumulative sums with allowance k:

    S+_t = max(0, S+_{t-1} + x_t - k)        S-_t = max(0, S-_{t-1} - x_t - k),        S+_0 = S-_0 = 0

and both statistics are returned for every t (an alarm is raised downstream where one passes the decision
interval h). Each program carries BLOCK_R series through time, one sample per step, the running sums in fp32.
A NaN sample makes the rest of the series NaN, as the recursion does.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def cusum_kernel(x_ptr, up_ptr, lo_ptr, M, T, k, s_xm, s_xt, s_um, s_ut, s_lm, s_lt, BLOCK_R: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    mask = rows < M
    s_up = tl.zeros([BLOCK_R], dtype=tl.float32)
    s_lo = tl.zeros([BLOCK_R], dtype=tl.float32)
    for t in range(0, T):
        x = tl.load(x_ptr + rows * s_xm + t * s_xt, mask=mask, other=0.0).to(tl.float32)
        s_up = s_up + x - k
        s_up = tl.where(s_up < 0.0, 0.0, s_up)
        s_lo = s_lo - x - k
        s_lo = tl.where(s_lo < 0.0, 0.0, s_lo)
        tl.store(up_ptr + rows * s_um + t * s_ut, s_up.to(up_ptr.dtype.element_ty), mask=mask)
        tl.store(lo_ptr + rows * s_lm + t * s_lt, s_lo.to(lo_ptr.dtype.element_ty), mask=mask)


def cusum(x: torch.Tensor, k: float = 0.5, BLOCK_R: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    M, T = x.shape
    up = torch.empty((M, T), dtype=x.dtype, device=x.device)
    lo = torch.empty((M, T), dtype=x.dtype, device=x.device)
    if M == 0 or T == 0:
        return up, lo
    grid = (M // BLOCK_R,)
    cusum_kernel[grid](x, up, lo, M, T, k, x.stride(0), x.stride(1), up.stride(0), up.stride(1),
                       lo.stride(0), lo.stride(1), BLOCK_R=BLOCK_R)
    return up, lo


def reference(x: torch.Tensor, k: float = 0.5) -> tuple[torch.Tensor, torch.Tensor]:
    M, T = x.shape
    up = torch.empty_like(x)
    lo = torch.empty_like(x)
    s_up = torch.zeros(M, dtype=x.dtype, device=x.device)
    s_lo = torch.zeros(M, dtype=x.dtype, device=x.device)
    for t in range(T):
        s_up = torch.clamp(s_up + x[:, t] - k, min=0.0)
        s_lo = torch.clamp(s_lo - x[:, t] - k, min=0.0)
        up[:, t] = s_up
        lo[:, t] = s_lo
    return up, lo


spec = kcheck.Spec(
    name="hx39_cusum_chart",
    kernel=cusum,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="x")],
    dims={"M": kcheck.Dim(nominal=100), "T": kcheck.Dim(nominal=200, large=False)},  # each program walks T serially
    params={"k": [0.5, 0.25]},
    reduce=["T"],
    configs=[{"BLOCK_R": 32}, {"BLOCK_R": 8}],
)

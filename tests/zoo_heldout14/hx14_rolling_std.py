"""Trailing rolling standard deviation per series (a volatility / anomaly feature of time-series pipelines):
out[i, j] = population std of x[i, max(0, j - W + 1) .. j], the window shortened at the start of the series.

Row-block kernel: a BLOCK_M x BLOCK_N output tile per program (grid over row tiles and column tiles). Each tile
gathers its W taps with shifted loads in one sweep, accumulating the sum and the sum of squares. Computed in fp32,
stored in the input dtype.
"""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def rolling_std_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on, W: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    r_ok = (rows < M)[:, None]
    out_mask = r_ok & (cols < N)[None, :]
    x_row = x_ptr + rows[:, None] * stride_xm
    count = tl.minimum(cols + 1, W).to(tl.float32)[None, :]
    total = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    total_sq = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k in tl.static_range(W):
        src = cols - k
        m = out_mask & (src >= 0)[None, :]
        v = tl.load(x_row + src[None, :] * stride_xn, mask=m, other=0.0).to(tl.float32)
        total += v
        total_sq += v * v
    mean = total / count
    std = tl.sqrt(tl.maximum(total_sq / count - mean * mean, 0.0))
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, std.to(out_ptr.dtype.element_ty),
             mask=out_mask)


def rolling_std(x: torch.Tensor, window: int = 8, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    rolling_std_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), W=window,
                             BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, window: int = 8) -> torch.Tensor:
    N = x.shape[1]
    windows = F.pad(x, (window - 1, 0)).unfold(-1, window, 1)          # [M, N, W], oldest tap first
    valid = torch.arange(window, device=x.device)[None, :] >= (window - 1 - torch.arange(N, device=x.device))[:, None]
    count = valid.sum(-1).to(x.dtype)                                     # [N]
    mean = (windows * valid).sum(-1) / count
    dev = (windows - mean[..., None]) * valid
    return torch.sqrt((dev * dev).sum(-1) / count)


spec = kcheck.Spec(
    name="hx14_rolling_std",
    kernel=rolling_std,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512, large=False)},  # grid axis 1: N tiles <= 65535
    params={"window": [8, 30]},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 256}],
)

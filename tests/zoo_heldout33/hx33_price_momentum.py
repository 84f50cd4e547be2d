"""Price momentum indicator over a fixed lag, one price series per row::

    mom[m, t] = x[m, t] - x[m, t - lag]   for t >= lag,      0 for the first lag samples (no history yet)

The lag is a mode (12 periods: a year of monthly closes; 5: a week of daily closes). Tiles of BLOCK_M series by
BLOCK_N samples, strides honoured, differences in fp32, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"

TILE = 4096  # samples per program


@triton.jit
def price_momentum_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on, LAG: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x_row = x_ptr + rows[:, None] * stride_xm
    now = tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    has_history = mask & (cols > LAG)[None, :]
    then = tl.load(x_row + (cols - LAG)[None, :] * stride_xn, mask=has_history, other=0.0).to(tl.float32)
    mom = tl.where(has_history, now - then, 0.0)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, mom.to(out_ptr.dtype.element_ty),
             mask=mask)


def price_momentum(x: torch.Tensor, lag: int = 12, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
    price_momentum_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), LAG=lag,
                                BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor, lag: int = 12) -> torch.Tensor:
    out = torch.zeros_like(x)
    if x.shape[-1] > lag:
        out[:, lag:] = x[:, lag:] - x[:, :-lag]
    return out


spec = kcheck.Spec(
    name="price_momentum",
    kernel=price_momentum,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="prices")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=250)},
    params={"lag": [12, 5]},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

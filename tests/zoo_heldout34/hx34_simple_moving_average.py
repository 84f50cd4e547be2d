"""Trailing simple moving average of price series: y[m, t] = mean(x[m, t - W + 1 .. t]).

The first W - 1 points of a series average what exists so far (t + 1 values), as pandas' rolling(W, min_periods=1)
does. One program takes one series and BLOCK_T consecutive times; the window is a second axis of the tile, BLOCK_W
lanes of which the first W are used, so each output sums its own window in fp32 (no running sum whose rounding
would drift along a long series).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def sma_kernel(x_ptr, y_ptr, T, W, s_xm, s_xt, s_ym, s_yt, BLOCK_T: tl.constexpr, BLOCK_W: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    t = tl.program_id(1).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    k = tl.arange(0, BLOCK_W).to(tl.int64)
    src = t[:, None] - k[None, :]
    window = (k < W)[None, :] & (src > 0) & (t < T)[:, None]
    x = tl.load(x_ptr + row * s_xm + src * s_xt, mask=window, other=0.0).to(tl.float32)
    total = tl.sum(x, axis=1)
    count = tl.minimum(t + 1, W).to(tl.float32)
    tl.store(y_ptr + row * s_ym + t * s_yt, (total / count).to(y_ptr.dtype.element_ty), mask=t < T)


def simple_moving_average(x: torch.Tensor, window: int = 5, BLOCK_T: int = 64) -> torch.Tensor:
    M, T = x.shape
    y = torch.empty((M, T), dtype=x.dtype, device=x.device)
    if M == 0 or T == 0:
        return y
    block_w = triton.next_power_of_2(window)
    sma_kernel[(M, triton.cdiv(T, BLOCK_T))](x, y, T, window, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                             BLOCK_T=BLOCK_T, BLOCK_W=block_w)
    return y


def reference(x: torch.Tensor, window: int = 5) -> torch.Tensor:
    T = x.shape[1]
    sums = torch.nn.functional.pad(x, (window - 1, 0)).unfold(1, window, 1).sum(-1)
    counts = torch.clamp(torch.arange(1, T + 1, dtype=x.dtype, device=x.device), max=window)
    return sums / counts


spec = kcheck.Spec(
    name="simple_moving_average",
    kernel=simple_moving_average,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="prices")],
    # T tiles on grid axis 1 (at most 65535 on a GPU): M grows in the past-2**31 case
    dims={"M": kcheck.Dim(nominal=16, real=()), "T": kcheck.Dim(nominal=256, real=(), large=False)},
    params={"window": [5, 20]},
    configs=[{"BLOCK_T": 64}, {"BLOCK_T": 16}],
    properties=[kcheck.props.linear()],
)

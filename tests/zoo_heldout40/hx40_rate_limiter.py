"""Slew-rate limiter on actuator command signals (control): the output may move by at most `rate` per sample.

x is [T, C]: T samples (rows) of C command channels (columns). y[0] = x[0] and, for t >= 1,
y[t] = y[t-1] + clamp(x[t] - y[t-1], -rate, rate). The recursion runs along time inside each program, which owns
BLOCK_C channels, keeps their last output in registers (fp32) and steps its row pointers by the time stride; the clamp
is written with comparisons, so a NaN command propagates as it does in the reference. Strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def rate_limiter_kernel(x_ptr, y_ptr, T, C, rate, s_xt, s_xc, s_yt, s_yc, BLOCK_C: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = cols < C
    x_ptrs = x_ptr + cols * s_xc
    y_ptrs = y_ptr + cols * s_yc
    y = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptrs, y.to(y_ptr.dtype.element_ty), mask=mask)
    for t in range(1, T):
        x_ptrs += s_xt
        y_ptrs += s_yt
        x = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
        d = x - y
        step = tl.where(d > rate, rate, tl.where(d < -rate, -rate, d))
        y = y + step


def rate_limiter(x: torch.Tensor, rate: float = 0.5, BLOCK_C: int = 64) -> torch.Tensor:
    T, C = x.shape
    y = torch.empty((T, C), dtype=x.dtype, device=x.device)
    if T and C:
        rate_limiter_kernel[(triton.cdiv(C, BLOCK_C),)](x, y, T, C, rate, x.stride(0), x.stride(1), y.stride(0),
                                                        y.stride(1), BLOCK_C=BLOCK_C)
    return y


def reference(x: torch.Tensor, rate: float = 0.5) -> torch.Tensor:
    y = torch.empty_like(x)
    if x.shape[0] == 0:
        return y
    y[0] = x[0]
    for t in range(1, x.shape[0]):
        y[t] = y[t - 1] + torch.clamp(x[t] - y[t - 1], -rate, rate)
    return y


spec = kcheck.Spec(
    name="hx40_rate_limiter",
    kernel=rate_limiter,
    reference=reference,
    inputs=[kcheck.Tensor("T", "C", name="command")],
    dims={"T": kcheck.Dim(nominal=200, real=(37, 2880)), "C": kcheck.Dim(nominal=24)},
    params={"rate": [0.5, 2.0]},
    configs=[{"BLOCK_C": 64}, {"BLOCK_C": 16}],
)

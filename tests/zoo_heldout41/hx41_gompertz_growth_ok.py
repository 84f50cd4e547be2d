"""Gompertz growth curve (agronomy: crop biomass; epidemiology: cumulative cases), evaluated on an [M, N] grid of
plots x days: y = a * exp(-b * exp(-c * t)), with the asymptote a, the displacement b and the growth rate c as modes.

2-D tiles of BLOCK_M x BLOCK_N, fp32 math, any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def gompertz_kernel(t_ptr, y_ptr, M, N, a, b, c, s_tm, s_tn, s_ym, s_yn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    y = a * tl.exp(-b * tl.exp(-c * t))
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def gompertz_growth(t, a=10.0, b=2.0, c=0.3, BLOCK_M=16, BLOCK_N=64):
    M, N = t.shape
    y = torch.empty((M, N), dtype=t.dtype, device=t.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gompertz_kernel[grid](t, y, M, N, float(a), float(b), float(c), t.stride(0), t.stride(1), y.stride(0),
                          y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def reference(t, a=10.0, b=2.0, c=0.3):
    return a * torch.exp(-b * torch.exp(-c * t))


spec = kcheck.Spec(
    name="gompertz_growth_ok",
    kernel=gompertz_growth,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="t")],
    params={"a": [10.0], "b": [2.0, 5.0], "c": [0.3]},
    dims={"M": kcheck.Dim(nominal=40), "N": kcheck.Dim(nominal=150)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 16}],
)

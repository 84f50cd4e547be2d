"""Savitzky-Golay smoothing of spectra along rows (chemistry: UV-Vis / Raman), the 5-point quadratic filter:

    y[j] = (-3 x[j-2] + 12 x[j-1] + 17 x[j] + 12 x[j+1] - 3 x[j+2]) / 35     for 2 <= j < N - 2

the two samples at each end kept as they are. The launcher copies x into the output and the kernel overwrites
the interior from x, in 2-D tiles of BLOCK_M spectra x BLOCK_N samples; fp32 math, any input strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def savgol5_kernel(x_ptr, y_ptr, M, N, s_xm, s_xn, s_ym, s_yn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] >= 2) & (cols[None, :] < N - 2)
    base = x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn
    xm2 = tl.load(base - 2 * s_xn, mask=mask, other=0.0).to(tl.float32)
    xm1 = tl.load(base - s_xn, mask=mask, other=0.0).to(tl.float32)
    x0 = tl.load(base, mask=mask, other=0.0).to(tl.float32)
    xp1 = tl.load(base + s_xn, mask=mask, other=0.0).to(tl.float32)
    xp2 = tl.load(base + 2 * s_xn, mask=mask, other=0.0).to(tl.float32)
    y = (-3.0 * (xm2 + xp2) + 12.0 * (xm1 + xp1) + 17.0 * x0) / 35.0
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def savitzky_golay_smooth(x, BLOCK_M=8, BLOCK_N=32):
    M, N = x.shape
    y = x.clone(memory_format=torch.contiguous_format)
    if M == 0 or N < 5:
        return y
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    savgol5_kernel[grid](y, y, M, N, y.stride(0), y.stride(1), y.stride(0), y.stride(1),
                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def reference(x):
    y = x.clone()
    if x.shape[1] >= 5:
        y[:, 2:-2] = (-3.0 * (x[:, :-4] + x[:, 4:]) + 12.0 * (x[:, 1:-3] + x[:, 3:-1]) + 17.0 * x[:, 2:-2]) / 35.0
    return y


spec = kcheck.Spec(
    name="savitzky_golay_smooth",
    kernel=savitzky_golay_smooth,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="spectra")],
    dims={"M": kcheck.Dim(nominal=24), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 32}, {"BLOCK_M": 4, "BLOCK_N": 128}],
    properties=[kcheck.props.linear()],
)

"""Edge-preserving 1-D bilateral filter along the rows of x [M, N] (denoising of signals, scanlines or sensor
traces): y[m, n] = sum_k w_k x[m, n + k] / sum_k w_k over the window |k| <= radius inside the row, with
w_k = exp(-k^2 / (2 sigma_s^2) - (x[m, n + k] - x[m, n])^2 / (2 sigma_r^2)). The centre weighs 1, so the
denominator is at least 1. One program per [BLOCK_M, BLOCK_N] tile loops over the window's offsets, loading the
shifted tile each time; fp32 arithmetic, strides passed explicitly, int64 offsets. radius, sigma_s and sigma_r
are modes."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def bilateral_rows_kernel(x_ptr, y_ptr, M, N, radius, inv_2ss, inv_2sr, s_xm, s_xn, s_ym, s_yn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    xr = x_ptr + rows[:, None] * s_xm
    centre = tl.load(xr + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    num = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    den = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(-radius, radius + 1):
        nb = cols + k
        nb_mask = row_mask[:, None] & ((nb >= 0) & (nb < N))[None, :]
        v = tl.load(xr + nb[None, :] * s_xn, mask=nb_mask, other=0.0).to(tl.float32)
        dv = v - centre
        w = tl.exp(-(k * k) * inv_2ss - dv * dv * inv_2sr)
        w = tl.where(nb_mask, w, 0.0)
        num += w * v
        den += w
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, (num / den).to(y_ptr.dtype.element_ty), mask=mask)


def bilateral_rows(x, radius=3, sigma_s=2.0, sigma_r=0.5, BLOCK_M=8, BLOCK_N=64):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        bilateral_rows_kernel[grid](x, out, M, N, radius, 1.0 / (2 * sigma_s ** 2), 1.0 / (2 * sigma_r ** 2),
                                    x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return x


def reference(x, radius=3, sigma_s=2.0, sigma_r=0.5):
    M, N = x.shape
    num = torch.zeros_like(x)
    den = torch.zeros_like(x)
    for k in range(-radius, radius + 1):
        lo, hi = max(0, -k), min(N, N - k)  # output columns whose neighbour n + k is inside the row
        if lo >= hi:
            continue
        v = x[:, lo + k:hi + k]
        c = x[:, lo:hi]
        w = torch.exp(-(k * k) / (2 * sigma_s ** 2) - (v - c) ** 2 / (2 * sigma_r ** 2))
        num[:, lo:hi] += w * v
        den[:, lo:hi] += w
    return num / den


spec = kcheck.Spec(
    name="hx25_bilateral_rows",
    kernel=bilateral_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    params={"radius": [3, 1], "sigma_s": [2.0], "sigma_r": [0.5, 4.0]},
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 64}, {"BLOCK_M": 2, "BLOCK_N": 256}],
)

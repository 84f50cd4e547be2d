"""Power at selected DFT bins (a pruned DFT, as a Goertzel bank would give): for each row of x [M, N] and each
requested integer bin k, P[m, k] = |sum_n x[m, n] exp(-2 pi i k n / N)|^2 / N. The phase k n is reduced modulo N in
int64 before it becomes an angle, so long records keep full accuracy. One program per (row, block of BLOCK_K bins)
loops over the record in chunks of BLOCK_N samples with [BLOCK_K, BLOCK_N] fp32 tiles for the real and imaginary
parts; the power is returned in fp32 whatever the input's precision."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def dft_bin_power_kernel(x_ptr, bins_ptr, out_ptr, N, K, two_pi_over_n, s_xm, s_xn, s_b, s_om, s_ok,
                         BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    ks = tl.program_id(1).to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    k_mask = ks < K
    k = tl.load(bins_ptr + ks * s_b, mask=k_mask, other=0).to(tl.int64)
    re = tl.zeros([BLOCK_K, BLOCK_N], dtype=tl.float32)
    im = tl.zeros([BLOCK_K, BLOCK_N], dtype=tl.float32)
    num_chunks = N // BLOCK_N
    for c in range(0, num_chunks):
        n = c * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        n_mask = n < N
        x = tl.load(x_ptr + row * s_xm + n * s_xn, mask=n_mask, other=0.0).to(tl.float32)
        phase = (k[:, None] * n[None, :]) % N
        angle = phase.to(tl.float32) * two_pi_over_n
        re += x[None, :] * tl.cos(angle)
        im -= x[None, :] * tl.sin(angle)
    sr = tl.sum(re, axis=1)
    si = tl.sum(im, axis=1)
    power = (sr * sr + si * si) / N
    tl.store(out_ptr + row * s_om + ks * s_ok, power, mask=k_mask)


def dft_bin_power(x, bins, BLOCK_K=16, BLOCK_N=128):
    M, N = x.shape
    K = bins.shape[0]
    out = torch.empty((M, K), dtype=torch.float32, device=x.device)
    if M == 0 or K == 0:
        return out
    grid = (M, triton.cdiv(K, BLOCK_K))
    dft_bin_power_kernel[grid](x, bins, out, N, K, 2.0 * math.pi / N, x.stride(0), x.stride(1), bins.stride(0),
                               out.stride(0), out.stride(1), BLOCK_K=BLOCK_K, BLOCK_N=BLOCK_N)
    return out


def reference(x, bins):
    N = x.shape[1]
    dt = torch.promote_types(x.dtype, torch.float32)  # float64 when checked; fp32 for a half-precision baseline
    n = torch.arange(N, dtype=torch.int64, device=x.device)
    angle = (2 * math.pi / N) * ((bins.to(torch.int64)[:, None] * n[None, :]) % N).to(dt)
    xd = x.to(dt)
    re = xd @ torch.cos(angle).T
    im = -(xd @ torch.sin(angle).T)
    return ((re * re + im * im) / N).to(torch.promote_types(x.dtype, torch.float32))


spec = kcheck.Spec(
    name="hx25_dft_bin_power",
    kernel=dft_bin_power,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Index("K", high="N", name="bins")],
    dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=512, min=1), "K": kcheck.Dim(nominal=24)},
    output_dtypes=[torch.float32],
    reduce=["N"],
    configs=[{"BLOCK_K": 16, "BLOCK_N": 128}, {"BLOCK_K": 8, "BLOCK_N": 256}],
)

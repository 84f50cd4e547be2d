"""Astrophysics (CUDA C): orbital periods from Kepler's third law, T = 2 pi sqrt(a^3 / mu), for the planets of
many systems (rows: the star's mu = 4 pi^2 M in AU^3 / yr^2, M in solar masses; columns: semi-major axes in AU;
T in years). sqrt(a^3 / mu) is computed as a * sqrt(a / mu) (no overflow of a^3). One thread per element of the
[M, N] grid, size_t offsets, launches of at most 2**30 elements (whole rows)."""

import math

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void orbital_period(const float* __restrict__ a, const float* __restrict__ mu,
                                          float* __restrict__ out, int rows, int n) {
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)rows * (size_t)n) return;
    const size_t r = idx / (size_t)n;
    const float ai = a[idx];
    out[idx] = 6.283185307179586f * ai * sqrtf(ai / mu[r]);
}
"""

period_kernel = kcheck.CudaKernel(SOURCE, "orbital_period",
                                  grid=lambda a, mu, out, rows, n: ((rows * n + 255) // 256,), block=(256,))


def orbital_period(a: torch.Tensor, mu: torch.Tensor, out: torch.Tensor) -> None:
    m, n = a.shape
    if m == 0 or n == 0:
        return
    a, mu = a.contiguous(), mu.contiguous()
    rows_per = max(1, 2**30 // n)
    for s in range(0, m, rows_per):
        e = min(m, s + rows_per)
        period_kernel(a[s:e], mu[s:e], out[s:e], e - s, n)


def reference(a: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    return 2 * math.pi * torch.sqrt(a ** 3 / mu[:, None])


def semi_major_axes(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (0.05 + 40.0 * ctx.rand(ctx.dims["M"], ctx.dims["N"], dtype=torch.float64)).to(ctx.dtype)


def stellar_mu(ctx: kcheck.CaseContext) -> torch.Tensor:
    mass = 0.1 + 2.0 * ctx.rand(ctx.dims["M"], dtype=torch.float64)
    return (4 * math.pi ** 2 * mass).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx36_cuda_orbital_period_ok",
    kernel=orbital_period,
    reference=reference,
    inputs=[kcheck.Custom(semi_major_axes, name="a", dims=("M", "N")), kcheck.Custom(stellar_mu, name="mu", dims=("M",))],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=200)},
    dtypes=["fp32"],
)

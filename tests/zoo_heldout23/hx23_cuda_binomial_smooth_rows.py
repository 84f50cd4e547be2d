"""CUDA C binomial smoothing of each row (the 5-tap [1 4 6 4 1] / 16 kernel, a Gaussian approximation used in
image pyramids and signal denoising), borders replicated.

Each block of 256 threads produces 256 outputs of one row: it stages those 256 inputs and a halo of 2 on each
side (indices clamped into the row) in shared memory, waits at __syncthreads(), then each thread combines its five
neighbours from shared memory. The 1-D grid enumerates (row, tile) pairs; size_t offsets.
"""

import torch

import kcheck

SOURCE = r"""
#define TILE 256
#define HALO 2
extern "C" __global__ void binomial_smooth_rows(const float* __restrict__ x, float* __restrict__ out, int m, int n,
                                                int tiles) {
    __shared__ float buf[TILE + 2 * HALO];
    const int row = blockIdx.x / tiles;
    const int start = (blockIdx.x % tiles) * TILE;
    const float* xr = x + (size_t)row * (size_t)n;
    for (int i = threadIdx.x; i < TILE + 2 * HALO; i += blockDim.x) {
        int j = start + i - HALO;
        j = j < 0 ? 0 : (j > n - 1 ? n - 1 : j);
        buf[i] = xr[j];
    }
    const int j = start + threadIdx.x;
    if (j < n) {
        const float* s = buf + threadIdx.x;
        out[(size_t)row * (size_t)n + j] = (s[0] + 4.0f * s[1] + 6.0f * s[2] + 4.0f * s[3] + s[4]) * 0.0625f;
    }
}
"""

smooth_kernel = kcheck.CudaKernel(SOURCE, "binomial_smooth_rows", grid=lambda x, out, m, n, tiles: (m * tiles,),
                                  block=(256,))


def binomial_smooth_rows(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0 or n == 0:
        return
    tiles = (n + 255) // 256
    xc = x.contiguous()
    rows_per_launch = max(1, (2**31 - 1) // tiles)
    for r0 in range(0, m, rows_per_launch):
        r1 = min(m, r0 + rows_per_launch)
        smooth_kernel(xc[r0:r1], out[r0:r1], r1 - r0, n, tiles)


def reference(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    if m == 0 or n == 0:
        return x.clone()
    p = torch.nn.functional.pad(x[:, None, :], (2, 2), mode="replicate")
    w = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0], dtype=x.dtype, device=x.device) / 16.0
    return torch.nn.functional.conv1d(p, w.view(1, 1, 5))[:, 0, :]


BUG_CLASS = "missing-syncthreads"

spec = kcheck.Spec(
    name="hx23_cuda_binomial_smooth_rows",
    kernel=binomial_smooth_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000)},
    dtypes=["fp32"],
)

"""CUDA C Savitzky-Golay smoothing of each row (5-point window, quadratic fit), edges by nearest-sample padding.

    y[j] = (-3 x[j-2] + 12 x[j-1] + 17 x[j] + 12 x[j+1] - 3 x[j+2]) / 35,   x[j] = x[clamp(j, 0, n-1)]

One block of 256 threads per 256-sample tile of a row (1-D grid over rows x tiles): the block stages its tile plus
a 2-sample halo on each side in shared memory, then each thread combines five neighbours. size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TILE 256
#define HALO 2
extern "C" __global__ void savgol5(const float* __restrict__ x, float* __restrict__ y, int n, int tiles) {
    __shared__ float s[TILE + 2 * HALO];
    const size_t row = blockIdx.x / tiles;
    const int start = (blockIdx.x % tiles) * TILE;
    const float* xr = x + row * (size_t)n;
    for (int i = threadIdx.x; i < TILE + 2 * HALO; i += blockDim.x) {
        const int j = min(max(start + i - HALO, 0), n - 1);
        s[i] = xr[j];
    }
    const int j = start + threadIdx.x;
    if (j < n) {
        const float* c = s + threadIdx.x + HALO;
        y[row * (size_t)n + j] = (-3.0f * (c[-2] + c[2]) + 12.0f * (c[-1] + c[1]) + 17.0f * c[0]) / 35.0f;
    }
}
"""

savgol_kernel = kcheck.CudaKernel(SOURCE, "savgol5", grid=lambda x, y, n, tiles: (x.shape[0] * tiles,), block=(256,))


def savgol_rows(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        savgol_kernel(x.contiguous(), y, N, (N + 255) // 256)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    N = x.shape[1]
    first, last = x[:, :1], x[:, -1:]
    xp = torch.cat([first, first, x, last, last], dim=1)  # nearest-sample padding
    y = torch.zeros_like(x)
    for k, c in enumerate((-3.0, 12.0, 17.0, 12.0, -3.0)):
        y = y + (c / 35.0) * xp[:, k:k + N]
    return y


spec = kcheck.Spec(
    name="hx22_cuda_savgol_rows",
    kernel=savgol_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000, real=(4096,))},
    dtypes=["fp32"],
)

"""CUDA C tidal low-pass filter of water-level records (oceanography): a symmetric 25-tap FIR along each row.

out[m, i] = sum_{k=0}^{2R} w[k] * x[m, i + k - R],   R = 12, samples outside the record taken as 0
Each block of 256 threads stages its 256 samples plus an R-sample halo on each side in shared memory, waits for
the whole tile, then each thread applies the taps from shared memory. Rows on grid.x, column tiles on grid.y;
size_t row offsets.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

RADIUS = 12

SOURCE = r"""
#define TILE 256
#define R 12
extern "C" __global__ void tidal_lowpass(const float* __restrict__ x, const float* __restrict__ w,
                                         float* __restrict__ out, int n) {
    __shared__ float tile[TILE + 2 * R];
    __shared__ float taps[2 * R + 1];
    const size_t row = blockIdx.x;
    const int base = blockIdx.y * TILE;
    const float* xr = x + row * (size_t)n;
    for (int j = threadIdx.x; j < TILE + 2 * R; j += blockDim.x) {
        int g = base - R + j;
        tile[j] = (g >= 0 && g < n) ? xr[g] : 0.0f;
    }
    if (threadIdx.x < 2 * R + 1) taps[threadIdx.x] = w[threadIdx.x];
    int i = base + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k <= 2 * R; ++k) acc += taps[k] * tile[threadIdx.x + k];
        out[row * (size_t)n + i] = acc;
    }
}
"""

lowpass_kernel = kcheck.CudaKernel(SOURCE, "tidal_lowpass", grid=lambda x, w, out, n: (x.shape[0], (n + 255) // 256),
                                   block=(256,))


def tidal_lowpass(x, w, out):
    M, N = x.shape
    if M and N:
        lowpass_kernel(x.contiguous(), w.contiguous(), out, N)


def reference(x, w):
    return torch.nn.functional.conv1d(x[:, None, :], w[None, None, :], padding=RADIUS)[:, 0, :]


def godin_like_taps(ctx):
    # a smooth positive window summing to 1 (the filter's DC gain)
    k = torch.arange(-RADIUS, RADIUS + 1, dtype=torch.float64)
    w = torch.cos(0.5 * torch.pi * k / (RADIUS + 1)) ** 2
    return (w / w.sum()).to(ctx.dtype).to(ctx.device)


spec = kcheck.Spec(
    name="hx35_cuda_tidal_lowpass",
    kernel=tidal_lowpass,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="level"), kcheck.Custom(godin_like_taps, name="taps", dims=(2 * RADIUS + 1,))],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=2000, large=False)},  # grid.y: N tiles <= 65535
    dtypes=["fp32"],
    properties=[kcheck.props.linear(0)],
)

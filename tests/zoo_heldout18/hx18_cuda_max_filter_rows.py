"""CUDA C grey-level dilation (running maximum filter) along each row, window 2R+1 centred, edges clamped to the
row (scipy.ndimage.maximum_filter1d with mode="nearest"):

    out[m, i] = max over j in [i - R, i + R] of x[m, clamp(j, 0, N - 1)],   R = 4

Blocks of 256 threads tile a row: each block stages its 256 elements plus an R-wide halo on each side in shared
memory (clamped loads), then every thread takes the maximum over its window from shared memory. Grid: (row tiles,
rows); size_t offsets.
"""

import torch

import kcheck

SOURCE = r"""
#define TILE 256
#define R 4
extern "C" __global__ void max_filter_rows(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[TILE + 2 * R];
    const int row = blockIdx.y;
    const int start = blockIdx.x * TILE;
    const float* xr = x + (size_t)row * (size_t)n;
    for (int k = threadIdx.x; k < TILE + 2 * R; k += blockDim.x) {
        int j = start - R + k;
        j = j < 0 ? 0 : (j >= n ? n - 1 : j);
        buf[k] = xr[j];
    }
    const int i = start + threadIdx.x;
    if (i < n) {
        float v = buf[threadIdx.x];
        for (int k = 1; k <= 2 * R; ++k) v = fmaxf(v, buf[threadIdx.x + k]);
        out[(size_t)row * (size_t)n + i] = v;
    }
}
"""

max_filter_kernel = kcheck.CudaKernel(SOURCE, "max_filter_rows",
                                      grid=lambda x, out, m, n: ((n + 255) // 256, m), block=(256,))


def max_filter_rows(x, out):
    m, n = x.shape
    if m and n:
        max_filter_kernel(x.contiguous(), out, m, n)


def reference(x):
    n = x.shape[-1]
    idx = torch.arange(n)[:, None] + torch.arange(-4, 5)[None, :]
    return x[:, idx.clamp(0, n - 1)].amax(-1)


BUG_CLASS = "missing-syncthreads"

spec = kcheck.Spec(
    name="hx18_cuda_max_filter_rows",
    kernel=max_filter_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, max=65535), "N": kcheck.Dim(nominal=1000)},
    dtypes=["fp32"],
)

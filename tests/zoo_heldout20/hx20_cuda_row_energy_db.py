"""CUDA C per-row signal energy in decibels: out[r] = 10 * log10(mean(x[r]^2) + 1e-12).

One block of 256 threads per row: a strided partial sum of squares per thread (fp32, size_t offsets), then a tree
reduction in shared memory with a __syncthreads() after every step; thread 0 writes the level.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_energy_db(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        float v = xr[j];
        acc += v * v;
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = 10.0f * log10f(buf[0] / (float)n + 1e-12f);
}
"""

row_energy_kernel = kcheck.CudaKernel(SOURCE, "row_energy_db", grid=lambda x, out, m, n: (m,), block=(256,))


def row_energy_db(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_energy_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    return 10.0 * torch.log10(x.pow(2).mean(-1) + 1e-12)


spec = kcheck.Spec(
    name="cuda_row_energy_db",
    kernel=row_energy_db,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"

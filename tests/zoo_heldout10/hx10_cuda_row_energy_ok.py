"""CUDA C frame energy: out[m] = mean_n x[m, n]**2, one block of 256 threads per row.

Each thread keeps a strided sum of squares, the block combines them in a shared-memory tree with a __syncthreads()
before the tree and after every step, and thread 0 writes the sum divided by n. fp32, size_t offsets. Runs on a
GPU through CuPy; without one kcheck compiles it for sm_90 and skips its cases.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_energy(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float v = xr[j];
        acc += v * v;
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0] / (float)n;
}
"""

energy_kernel = kcheck.CudaKernel(SOURCE, "row_energy", grid=lambda x, out, m, n: (m,), block=(256,))


def row_energy(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        energy_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx10_cuda_row_energy_ok",
    kernel=row_energy,
    reference=lambda x: x.pow(2).mean(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = None

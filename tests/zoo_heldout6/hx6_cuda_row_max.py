"""CUDA C row maximum: one block of 256 threads per row, a strided running max per thread, then a tree reduction in
shared memory. NaN wins every comparison, as torch.amax propagates it. size_t row offsets. Runs on a GPU through
CuPy; without one kcheck compiles it for sm_90 and skips its cases."""

import torch

import kcheck

SOURCE = r"""
__device__ __forceinline__ float nan_max(float a, float b) {
    return (b > a || b != b) ? b : a;
}

extern "C" __global__ void row_max(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = -INFINITY;
    for (int j = t; j < n; j += blockDim.x) acc = nan_max(acc, xr[j]);
    buf[t] = acc;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] = nan_max(buf[t], buf[t + s]);
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0];
}
"""

row_max_kernel = kcheck.CudaKernel(SOURCE, "row_max", grid=lambda x, out, m, n: (m,), block=(256,))


def row_max(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_max_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx6_cuda_row_max",
    kernel=row_max,
    reference=lambda x: torch.amax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},  # amax of an empty row is undefined
    dtypes=["fp32"],
)

BUG_CLASS = "missing-syncthreads"

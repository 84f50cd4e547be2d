"""CUDA C row sums: one block of 256 threads per row, a strided partial sum per thread (fp32, size_t offsets),
then a tree reduction in shared memory with a __syncthreads() after every step. Runs on a GPU through CuPy;
on a machine without one kcheck compiles it for sm_90, reports its resources and skips its cases."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_sum(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += xr[j];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0];
}
"""

row_sum_kernel = kcheck.CudaKernel(SOURCE, "row_sum", grid=lambda x, out, m, n: (m,), block=(256,))


def row_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_sum_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="cuda_block_reduce",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

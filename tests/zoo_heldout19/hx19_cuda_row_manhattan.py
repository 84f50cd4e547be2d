"""CUDA C row-wise Manhattan (L1) distance between two batches of vectors: d[m] = sum_n |x[m, n] - y[m, n]|.

One block of 256 threads per row: each thread sums a strided slice of the row in fp32 (size_t offsets), then the
block combines the 256 partial sums with a tree reduction in shared memory, every thread reaching every
__syncthreads()."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
extern "C" __global__ void row_manhattan(const float* __restrict__ x, const float* __restrict__ y,
                                         float* __restrict__ d, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    const float* yr = y + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += fabsf(xr[j] - yr[j]);
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) d[row] = buf[0];
}
"""

manhattan_kernel = kcheck.CudaKernel(SOURCE, "row_manhattan", grid=lambda x, y, d, m, n: (m,), block=(256,))


def row_manhattan(x: torch.Tensor, y: torch.Tensor, d: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        manhattan_kernel(x.contiguous(), y.contiguous(), d, m, n)


spec = kcheck.Spec(
    name="hx19_cuda_row_manhattan",
    kernel=row_manhattan,
    reference=lambda x, y: (x - y).abs().sum(-1),
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=768)},
    dtypes=["fp32"],
    reduce=["N"],
)

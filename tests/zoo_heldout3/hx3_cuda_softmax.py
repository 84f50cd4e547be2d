"""CUDA C row softmax: one block of 256 threads per row. Each thread scans a strided slice of the row for its
maximum and then for its sum of exp(x - max); the 256 partial results are combined by tree reductions in shared
memory, and the row is written as exp(x - max) / sum. fp32, size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void row_softmax(const float* __restrict__ x, float* __restrict__ y, int n) {
    __shared__ float red[THREADS];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * (size_t)n;
    float* yr = y + (size_t)blockIdx.x * (size_t)n;

    float m = -INFINITY;
    for (int j = t; j < n; j += THREADS) m = fmaxf(m, xr[j]);
    red[t] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            red[t] = fmaxf(red[t], red[t + s]);
            __syncthreads();
        }
    }
    m = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int j = t; j < n; j += THREADS) sum += expf(xr[j] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];
    for (int j = t; j < n; j += THREADS) yr[j] = expf(xr[j] - m) * inv;
}
"""

softmax_kernel = kcheck.CudaKernel(SOURCE, "row_softmax", grid=lambda x, y, n: (x.shape[0],), block=(256,))


def row_softmax(x: torch.Tensor, y: torch.Tensor) -> None:
    M, N = x.shape
    if M and N:
        softmax_kernel(x.contiguous(), y, N)


spec = kcheck.Spec(
    name="hx3_cuda_softmax",
    kernel=row_softmax,
    reference=lambda x: torch.softmax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"

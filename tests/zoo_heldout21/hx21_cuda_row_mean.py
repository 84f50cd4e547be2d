"""CUDA C row means (DC level of each signal): one block of 256 threads per row, a strided fp32 partial sum per
thread (size_t offsets), a tree reduction in shared memory, then the sum divided by n."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_mean(const float* __restrict__ x, float* __restrict__ out, int m, long long n) {
    __shared__ float buf[256];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * (size_t)n;
    float acc = 0.0f;
    for (long long j = t; j < n; j += blockDim.x) acc += xr[j];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[blockIdx.x] = buf[0] / (float)n;
}
"""

row_mean_kernel = kcheck.CudaKernel(SOURCE, "row_mean", grid=lambda x, out, m, n: (m,), block=(256,))


def row_mean(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_mean_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx21_cuda_row_mean",
    kernel=row_mean,
    reference=lambda x: x.mean(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)
BUG_CLASS = "divergent-barrier"

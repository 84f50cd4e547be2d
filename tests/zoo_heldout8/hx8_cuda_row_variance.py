"""CUDA C row variance (biased, as torch.var(unbiased=False)): one block of 256 threads per row, two passes over
the row. Each pass forms a strided per-thread fp32 partial sum (of x, then of (x - mean)^2) and reduces it with a
shared-memory tree; thread 0 publishes the mean to the block through shared memory between the passes.
size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void row_variance(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[THREADS];
    __shared__ float s_mean;
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;

    float acc = 0.0f;
    for (int j = t; j < n; j += THREADS) acc += xr[j];
    buf[t] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) s_mean = buf[0] / (float)n;
    __syncthreads();
    const float mean = s_mean;

    float sq = 0.0f;
    for (int j = t; j < n; j += THREADS) {
        const float d = xr[j] - mean;
        sq += d * d;
    }
    buf[t] = sq;
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0] / (float)n;
}
"""

row_variance_kernel = kcheck.CudaKernel(SOURCE, "row_variance", grid=lambda x, out, m, n: (m,), block=(256,))


def row_variance(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_variance_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx8_cuda_row_variance",
    kernel=row_variance,
    reference=lambda x: x.var(-1, unbiased=False),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "missing-syncthreads"

"""CUDA C sample skewness of each row (the population moment ratio g1 = m3 / m2^(3/2)):

    d = x - x[0],   mean = mean(d),   m2 = mean((d - mean)^2),   m3 = mean((d - mean)^3),
    skew = m3 / m2^(3/2),  and 0 for a constant row (m2 = 0)

The shift by the row's first value keeps the moments exact for data far from zero and makes a constant row give
exactly m2 = 0; the shifted values are divided by their largest magnitude (skewness is scale-invariant), so their
squares and cubes neither underflow for tiny data nor overflow for huge data. One block of 256 threads per row:
strided partial results per thread, then block_max() and block_sum(), tree reductions in shared memory that every
thread of the block calls (each step followed by __syncthreads(); the buffer is released with a last barrier so
the next call can reuse it). fp32, size_t offsets, strides honoured.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define THREADS 256
__device__ float block_sum(float v, float* buf) {
    const int t = threadIdx.x;
    buf[t] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    const float total = buf[0];
    __syncthreads();
    return total;
}

__device__ float block_max(float v, float* buf) {
    const int t = threadIdx.x;
    buf[t] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] = fmaxf(buf[t], buf[t + s]);
        __syncthreads();
    }
    const float total = buf[0];
    __syncthreads();
    return total;
}

extern "C" __global__ void row_skewness(const float* __restrict__ x, float* __restrict__ out, int m, int n,
                                        int sxm, int sxn) {
    __shared__ float buf[THREADS];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * (size_t)sxm;
    const float shift = xr[0];
    float amax = 0.0f;
    for (int j = t; j < n; j += THREADS) amax = fmaxf(amax, fabsf(xr[(size_t)j * sxn] - shift));
    const float scale = block_max(amax, buf);
    float s1 = 0.0f;
    for (int j = t; j < n; j += THREADS) s1 += scale > 0.0f ? (xr[(size_t)j * sxn] - shift) / scale : 0.0f;
    const float mean = block_sum(s1, buf) / n;
    float s2 = 0.0f, s3 = 0.0f;
    for (int j = t; j < n; j += THREADS) {
        const float d = (scale > 0.0f ? (xr[(size_t)j * sxn] - shift) / scale : 0.0f) - mean;
        s2 += d * d;
        s3 += d * d * d;
    }
    const float m2 = block_sum(s2, buf) / n;
    if (t == 0) {
        const float m3 = block_sum(s3, buf) / n;
        out[blockIdx.x] = (m2 > 0.0f) ? m3 / (m2 * sqrtf(m2)) : 0.0f;
    }
}
"""

skew_kernel = kcheck.CudaKernel(SOURCE, "row_skewness", grid=lambda x, out, m, n, sxm, sxn: (m,), block=(256,))


def row_skewness(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        skew_kernel(x, out, m, n, x.stride(0), x.stride(1))


def reference(x: torch.Tensor) -> torch.Tensor:
    d = x - x[:, :1]
    dev = d - d.mean(-1, keepdim=True)
    m2 = (dev * dev).mean(-1)
    m3 = (dev * dev * dev).mean(-1)
    return torch.where(m2 > 0, m3 / torch.where(m2 > 0, m2, 1.0) ** 1.5, 0.0)


spec = kcheck.Spec(
    name="cuda_row_skewness",
    kernel=row_skewness,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=2000, min=1)},  # a row has at least one value
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C row peak normalization (audio frames): out[m, n] = x[m, n] / max_n |x[m, n]| (a row of zeros is left as
it is; a NaN in a row is its peak).

One block of 256 threads per row: each thread takes a strided running max of |x|, the block combines them with a
tree in shared memory, then every thread divides its elements by the peak. fp32, size_t offsets. Runs on a GPU
through CuPy; without one kcheck compiles it for sm_90 and skips its cases.
"""

import torch

import kcheck

SOURCE = r"""
__device__ __forceinline__ float nan_max(float a, float b) { return (a != a || a > b) ? a : b; }

extern "C" __global__ void row_peak_normalize(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    float peak = 0.0f;
    for (int j = t; j < n; j += blockDim.x) peak = nan_max(fabsf(xr[j]), peak);
    buf[t] = peak;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] = nan_max(buf[t + s], buf[t]);
        __syncthreads();
    }
    const float p = buf[0];
    for (int j = t; j < n; j += blockDim.x) orow[j] = p > 0.0f || p != p ? xr[j] / p : xr[j];
}
"""

peak_kernel = kcheck.CudaKernel(SOURCE, "row_peak_normalize", grid=lambda x, out, m, n: (m,), block=(256,))


def row_peak_normalize(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        peak_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    a = x.abs().amax(-1, keepdim=True)
    return x / torch.where(a == 0, torch.ones_like(a), a)


spec = kcheck.Spec(
    name="hx10_cuda_row_peak_normalize",
    kernel=row_peak_normalize,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
)

BUG_CLASS = "missing-syncthreads"

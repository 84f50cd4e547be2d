"""CUDA C peak amplitude per row: max |x| over each row (NaN if the row holds one), one block of 256 threads per
row, a strided per-thread maximum (size_t offsets), then a tree reduction in shared memory."""

import torch

import kcheck

SOURCE = r"""
__device__ __forceinline__ float nanmax(float a, float b) { return (b > a || b != b) ? b : a; }

extern "C" __global__ void row_peak_abs(const float* __restrict__ x, float* __restrict__ out, int m, long long n) {
    __shared__ float buf[256];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * (size_t)n;
    float acc = 0.0f;
    for (long long j = t; j < n; j += blockDim.x) acc = nanmax(acc, fabsf(xr[j]));
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] = nanmax(buf[t], buf[t + s]);
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}
"""

row_peak_abs_kernel = kcheck.CudaKernel(SOURCE, "row_peak_abs", grid=lambda x, out, m, n: (m,), block=(256,))


def row_peak_abs(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_peak_abs_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx21_cuda_row_peak_abs",
    kernel=row_peak_abs,
    reference=lambda x: x.abs().amax(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
)
BUG_CLASS = "missing-syncthreads"

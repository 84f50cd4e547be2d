"""CUDA C per-row range (peak-to-peak, torch.amax - torch.amin over the last dimension), as used for per-row
quantization ranges. One block of 256 threads per row: strided partial max/min per thread (a NaN wins), then a tree
reduction of both in shared memory; size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
#define TB 256
__device__ __forceinline__ float nanmax(float a, float b) { return (a != a || b != b) ? (a + b) : fmaxf(a, b); }
__device__ __forceinline__ float nanmin(float a, float b) { return (a != a || b != b) ? (a + b) : fminf(a, b); }

extern "C" __global__ void row_range(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float hi[TB];
    __shared__ float lo[TB];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float h = -INFINITY, l = INFINITY;
    for (int j = t; j < n; j += TB) {
        const float v = xr[j];
        h = nanmax(h, v);
        l = nanmin(l, v);
    }
    hi[t] = h;
    lo[t] = l;
    __syncthreads();
    for (int s = TB / 2; s > 0; s >>= 1) {
        if (t < s) {
            hi[t] = nanmax(hi[t], hi[t + s]);
            lo[t] = nanmin(lo[t], lo[t + s]);
            __syncthreads();
        }
    }
    if (t == 0) out[row] = hi[0] - lo[0];
}
"""

row_range_kernel = kcheck.CudaKernel(SOURCE, "row_range", grid=lambda x, out, m, n: (m,), block=(256,))


def row_range(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0:
        return
    if n == 0:
        out.fill_(float("nan"))
        return
    row_range_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx9_cuda_row_range",
    kernel=row_range,
    reference=lambda x: x.amax(-1) - x.amin(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = 'divergent-barrier'  # the planted class (from the README's table), for benchmarks/zoo.py

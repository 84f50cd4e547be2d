"""CUDA C row sort (ascending) by a bitonic network in shared memory: the per-row sort behind top-p / top-k
sampling and median-style robust statistics when a row fits one block.

One block per row with P threads, P = n rounded up to a power of two (n <= 1024: one element per thread, a row in
shared memory). Padding slots hold NaN, which the comparator orders after every number, as torch.sort does, so they
end up past the n real values. In each (k, j) step, thread t compares s[t] with s[t ^ j] when t ^ j > t and swaps
them into ascending order when (t & k) == 0, descending otherwise, then waits at the barrier. size_t row offsets.
"""

import torch
import triton

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
__device__ __forceinline__ bool goes_after(float a, float b) {
    return a > b || (isnan(a) && !isnan(b));
}

extern "C" __global__ void bitonic_sort_rows(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float s[1024];
    const int t = threadIdx.x;
    const int p = blockDim.x;
    const size_t base = (size_t)blockIdx.x * (size_t)n;
    s[t] = t < n ? x[base + t] : __int_as_float(0x7fc00000);
    __syncthreads();
    for (int k = 2; k <= p; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            const int u = t ^ j;
            if (u > t) {
                const float a = s[t];
                const float b = s[u];
                const bool ascending = (t & k) == 0;
                if (ascending ? goes_after(a, b) : goes_after(b, a)) {
                    s[t] = b;
                    s[u] = a;
                }
                __syncthreads();
            }
        }
    }
    if (t < n) out[base + t] = s[t];
}
"""

sort_kernel = kcheck.CudaKernel(SOURCE, "bitonic_sort_rows", grid=lambda x, out, n: (x.shape[0],),
                                block=lambda x, out, n: (triton.next_power_of_2(max(n, 1)),))


def sort_rows(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        sort_kernel(x.contiguous(), out, n)


spec = kcheck.Spec(
    name="hx14_cuda_bitonic_sort",
    kernel=sort_rows,
    reference=lambda x: torch.sort(x, dim=-1).values,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=1000, max=1024, large=False)},
    dtypes=["fp32"],
)

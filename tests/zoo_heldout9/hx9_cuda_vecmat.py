"""CUDA C vector-matrix product, out[n] = sum_k x[k] * A[k, n] (a row vector times a row-major matrix, as in a
single-token decode step with weights stored [in, out]). Blocks of 256 threads, one output column per thread; x is
staged through shared memory 256 entries at a time, fp32 accumulation, size_t offsets."""

import torch

import kcheck

SOURCE = r"""
#define TB 256
extern "C" __global__ void vecmat(const float* __restrict__ x, const float* __restrict__ a,
                                  float* __restrict__ out, int k, int n) {
    __shared__ float xs[TB];
    const int t = threadIdx.x;
    const int col = blockIdx.x * TB + t;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += TB) {
        xs[t] = (k0 + t < k) ? x[k0 + t] : 0.0f;
        const int kend = min(TB, k - k0);
        if (col < n) {
            for (int kk = 0; kk < kend; ++kk) acc += xs[kk] * a[(size_t)(k0 + kk) * (size_t)n + col];
        }
        __syncthreads();
    }
    if (col < n) out[col] = acc;
}
"""

vecmat_kernel = kcheck.CudaKernel(SOURCE, "vecmat", grid=lambda x, a, out, k, n: ((n + 255) // 256,), block=(256,))


def vecmat(x: torch.Tensor, a: torch.Tensor, out: torch.Tensor) -> None:
    k, n = a.shape
    if n == 0:
        return
    if k == 0:
        out.zero_()
        return
    vecmat_kernel(x.contiguous(), a.contiguous(), out, k, n)


spec = kcheck.Spec(
    name="hx9_cuda_vecmat",
    kernel=vecmat,
    reference=lambda x, a: x @ a,
    inputs=[kcheck.Tensor("K", name="x"), kcheck.Tensor("K", "N", name="a")],
    outputs=[kcheck.Tensor("N")],
    dims={"K": kcheck.Dim(nominal=1024), "N": kcheck.Dim(nominal=512)},
    dtypes=["fp32"],
    reduce=["K"],
)

BUG_CLASS = 'missing-syncthreads'  # the planted class (from the README's table), for benchmarks/zoo.py

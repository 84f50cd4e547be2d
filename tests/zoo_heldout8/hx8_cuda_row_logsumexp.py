"""CUDA C row logsumexp: out[m] = log(sum_n exp(x[m, n])), stable. One block of 256 threads per row; each thread
keeps an online (max, sum of exp(x - max)) pair over a strided slice of the row, then the pairs are merged by a
shared-memory tree (the sum of the smaller-max side rescaled by exp(max difference)). size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
#include <math.h>
#define THREADS 256

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    if (isnan(m2) || isnan(s2)) { m = 0.0f; s = NAN; return; }  /* NaN wins, and stays */
    if (isnan(s)) return;
    const float mx = fmaxf(m, m2);
    if (mx == -INFINITY) return;                      /* both empty */
    if (mx == INFINITY) { m = mx; s = 1.0f; return; } /* +inf dominates: the result is +inf */
    s = s * expf(m - mx) + s2 * expf(m2 - mx);
    m = mx;
}

extern "C" __global__ void row_logsumexp(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float sm[THREADS];
    __shared__ float ss[THREADS];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float mx = -INFINITY, s = 0.0f;
    for (int j = t; j < n; j += THREADS) merge(mx, s, xr[j], 1.0f);
    sm[t] = mx;
    ss[t] = s;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if (t < k) {
            float a = sm[t], b = ss[t];
            merge(a, b, sm[t + k], ss[t + k]);
            sm[t] = a;
            ss[t] = b;
            __syncthreads();
        }
    }
    if (t == 0) out[row] = sm[0] + logf(ss[0]);
}
"""

row_logsumexp_kernel = kcheck.CudaKernel(SOURCE, "row_logsumexp", grid=lambda x, out, m, n: (m,), block=(256,))


def row_logsumexp(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_logsumexp_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx8_cuda_row_logsumexp",
    kernel=row_logsumexp,
    reference=lambda x: torch.logsumexp(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"

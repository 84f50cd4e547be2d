"""CUDA C Hoyer sparsity of each row (sparse coding, pruning criteria):
s[m] = (sqrt(N) - ||x||_1 / ||x||_2) / (sqrt(N) - 1), 1 for an all-zero row (N >= 2). One block of 256 threads per
row: a first block reduction finds the row's largest magnitude, the second sums |x| / amax and (x / amax)^2 (the
ratio is scale free, and scaling keeps tiny rows from underflowing when squared); tree reductions in shared memory
with a __syncthreads() after every step; size_t row offsets."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void hoyer_sparsity(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float s1[THREADS];
    __shared__ float s2[THREADS];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * n;
    float amax = 0.0f;
    for (int j = t; j < n; j += THREADS) amax = fmaxf(amax, fabsf(xr[j]));
    s1[t] = amax;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) s1[t] = fmaxf(s1[t], s1[t + s]);
        __syncthreads();
    }
    const float scale = s1[0] > 0.0f ? s1[0] : 1.0f;
    __syncthreads();
    float a1 = 0.0f, a2 = 0.0f;
    for (int j = t; j < n; j += THREADS) {
        const float v = xr[j] / scale;
        a1 += fabsf(v);
        a2 += v * v;
    }
    s1[t] = a1;
    s2[t] = a2;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            s1[t] += s1[t + s];
            s2[t] += s2[t + s];
            __syncthreads();
        }
    }
    if (t == 0) {
        const float l1 = s1[0], l2 = sqrtf(s2[0]), rn = sqrtf((float)n);
        out[blockIdx.x] = l2 == 0.0f ? 1.0f : (rn - l1 / l2) / (rn - 1.0f);
    }
}
"""

hoyer_kernel = kcheck.CudaKernel(SOURCE, "hoyer_sparsity", grid=lambda x, out, m, n: (m,), block=(256,))


def hoyer_sparsity(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        hoyer_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    l1 = x.abs().sum(-1)
    l2 = x.pow(2).sum(-1).sqrt()
    rn = n ** 0.5
    return torch.where(l2 == 0, torch.ones_like(l1), (rn - l1 / l2) / (rn - 1.0))


spec = kcheck.Spec(
    name="hx31_cuda_hoyer_sparsity",
    kernel=hoyer_sparsity,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=2)},
    dtypes=["fp32"],
    reduce=["N"],
)

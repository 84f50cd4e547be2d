"""CUDA C entropy of the softmax of each row (the per-token entropy of a next-token distribution):
H = -sum_j p_j log p_j with p = softmax(x), computed as log S - sum_j e_j (x_j - m) / S, e_j = exp(x_j - m),
S = sum_j e_j, m = max_j x_j.

One block of 256 threads per row: a strided pass for the thread's maximum, a tree reduction of the maxima in shared
memory, then a strided pass for the two sums and two more tree reductions. size_t row offsets; a -inf entry adds
nothing (0 log 0 = 0).

Planted bug (divergent-barrier): in the max reduction the __syncthreads() sits inside `if (t < s)`, so only the
threads that still take part in a step reach the barrier (a barrier under a thread-dependent branch: undefined
behaviour; threads can read buf[t + s] before the writing thread has stored it, or the block hangs).
"""

import torch

import kcheck

SOURCE = r"""
#define THREADS 256

extern "C" __global__ void row_entropy(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float buf[THREADS];
    __shared__ float buf2[THREADS];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * (size_t)n;

    float m = -INFINITY;
    for (int j = t; j < n; j += THREADS) {
        const float v = xr[j];
        m = (v > m || v != v) ? v : m;
    }
    buf[t] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            const float o = buf[t + s];
            if (o > buf[t] || o != o) buf[t] = o;
            __syncthreads();
        }
    }
    const float mx = buf[0];
    __syncthreads();

    float se = 0.0f, sxe = 0.0f;
    for (int j = t; j < n; j += THREADS) {
        const float d = xr[j] - mx;
        const float e = expf(d);
        se += e;
        sxe += e > 0.0f ? e * d : (d == d ? 0.0f : d);
    }
    buf[t] = se;
    buf2[t] = sxe;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            buf2[t] += buf2[t + s];
        }
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = logf(buf[0]) - buf2[0] / buf[0];
}
"""

entropy_kernel = kcheck.CudaKernel(SOURCE, "row_entropy", grid=lambda x, out, n: (x.shape[0],), block=(256,))


def row_entropy(x, out):
    m, n = x.shape
    if m == 0:
        return
    if n == 0:
        out.fill_(float("nan"))
        return
    entropy_kernel(x.contiguous(), out, n)


def reference(x):
    p = torch.softmax(x, dim=-1)
    return -torch.special.xlogy(p, p).sum(-1)


spec = kcheck.Spec(
    name="hx11_cuda_row_entropy",
    kernel=row_entropy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=2000, min=1, large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"  # __syncthreads() inside `if (t < s)` in the max reduction

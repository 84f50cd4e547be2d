"""CUDA C 1-D Wasserstein-1 (earth mover's) distance between paired histograms on the same unit-width bins: for
rows a and b,

    W1(a, b) = sum_k |C_k|,   C_k = sum_{i <= k} (a_i - b_i)

(the L1 distance between the two cumulative distributions; for normalized histograms, the cost of moving a's mass
onto b's). One block of 256 threads per row walks the bins in chunks of 256: an inclusive Hillis-Steele scan of
the chunk's differences in shared memory (a __syncthreads() between reading a neighbour and writing, and after
writing, for every thread), plus the carry of the chunks before; each thread keeps its sum of |C_k|, and a tree
reduction in shared memory gives the row's distance. fp32, size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define BLOCK 256
extern "C" __global__ void wasserstein1d_rows(const float* __restrict__ a, const float* __restrict__ b,
                                              float* __restrict__ out, int m, int n) {
    __shared__ float buf[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* ar = a + (size_t)row * (size_t)n;
    const float* br = b + (size_t)row * (size_t)n;
    float carry = 0.0f, acc = 0.0f;
    for (int base = 0; base < n; base += BLOCK) {
        const int k = base + t;
        buf[t] = (k < n) ? ar[k] - br[k] : 0.0f;
        __syncthreads();
        for (int off = 1; off < BLOCK; off <<= 1) {
            float v = 0.0f;
            if (t >= off) {
                v = buf[t - off];
                __syncthreads();
            }
            buf[t] += v;
            __syncthreads();
        }
        if (k < n) acc += fabsf(carry + buf[t]);
        carry += buf[BLOCK - 1];
        __syncthreads();
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0];
}
"""

w1_kernel = kcheck.CudaKernel(SOURCE, "wasserstein1d_rows", grid=lambda a, b, out, m, n: (m,), block=(256,))


def wasserstein1d_rows(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    m, n = a.shape
    if m:
        w1_kernel(a.contiguous(), b.contiguous(), out, m, n)


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(a - b, dim=-1).abs().sum(-1)


spec = kcheck.Spec(
    name="hx32_cuda_wasserstein1d_rows",
    kernel=wasserstein1d_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="hist_a"), kcheck.Tensor("M", "N", name="hist_b")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000)},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C batched quadratic form with one shared matrix: q[b] = x_b^T A x_b for each row x_b of X [B, D] and A [D, D]
(squared Mahalanobis norms with a full precision matrix, energy of a Gaussian field, x^T H x curvature probes).

One block of 256 threads per row b: the row is staged in shared memory (D <= 1024), a __syncthreads(), then each
thread takes rows i of A in a strided loop and adds x_i (A x)_i to its partial sum (each (A x)_i summed apart
first, then added: two-level summation); a tree reduction in shared memory with a __syncthreads() after every step
gives q[b]. fp32, size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
#define THREADS 256
#define MAX_D 1024
extern "C" __global__ void quadratic_form(const float* __restrict__ x, const float* __restrict__ a,
                                          float* __restrict__ q, int b, int d) {
    __shared__ float xs[MAX_D];
    __shared__ float red[THREADS];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)d;
    for (int j = t; j < d; j += THREADS) xs[j] = xr[j];
    __syncthreads();
    float acc = 0.0f;
    for (int i = t; i < d; i += THREADS) {
        const float* ai = a + (size_t)i * (size_t)d;
        float axi = 0.0f;
        for (int j = 0; j < d; ++j) axi += ai[j] * xs[j];
        acc += xs[i] * axi;
    }
    red[t] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) q[row] = red[0];
}
"""

qf_kernel = kcheck.CudaKernel(SOURCE, "quadratic_form", grid=lambda x, a, q, b, d: (b,), block=(256,))


def quadratic_form(x: torch.Tensor, a: torch.Tensor, q: torch.Tensor) -> None:
    b, d = x.shape
    if b == 0:
        return
    if d == 0:
        q.zero_()
        return
    qf_kernel(x.contiguous(), a.contiguous(), q, b, d)


def reference(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    return ((x @ a.T) * x).sum(-1)


spec = kcheck.Spec(
    name="hx32_cuda_quadratic_form_ok",
    kernel=quadratic_form,
    reference=reference,
    inputs=[kcheck.Tensor("B", "D", name="x"), kcheck.Tensor("D", "D", name="A")],
    outputs=[kcheck.Tensor("B")],
    dims={"B": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=128, max=1024)},
    dtypes=["fp32"],
    reduce=["D"],
)

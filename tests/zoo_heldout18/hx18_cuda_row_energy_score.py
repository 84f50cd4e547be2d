"""CUDA C free-energy score of classifier logits (energy-based out-of-distribution detection, Liu et al. 2020),
per row with temperature T = 1:

    E[m] = -T * logsumexp(x[m, :] / T)

One block of 256 threads per row: a strided max, a block max through dynamically sized shared memory, then a strided sum of exp(x - max) reduced the same way. size_t offsets.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void energy_score(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    extern __shared__ float red[];
    const int row = blockIdx.x, t = threadIdx.x, nt = blockDim.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float mx = -INFINITY;
    for (int j = t; j < n; j += nt) mx = fmaxf(mx, xr[j]);
    red[t] = mx;
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();
    float acc = 0.0f;
    if (mx != -INFINITY)
        for (int j = t; j < n; j += nt) acc += expf(xr[j] - mx);
    red[t] = acc;
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = (mx == INFINITY) ? -INFINITY : -(mx + logf(red[0]));
}
"""

THREADS = 256
energy_kernel = kcheck.CudaKernel(SOURCE, "energy_score", grid=lambda x, out, m, n: (m,), block=(THREADS,))


def energy_score(x, out):
    m, n = x.shape
    if m:
        energy_kernel(x.contiguous(), out, m, n)


def reference(x):
    return -torch.logsumexp(x, dim=-1)


BUG_CLASS = "kernel-crash"

spec = kcheck.Spec(
    name="hx18_cuda_row_energy_score",
    kernel=energy_score,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1000, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)

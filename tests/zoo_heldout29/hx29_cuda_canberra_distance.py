"""CUDA C Canberra distance between paired rows: d = sum_j |x_j - y_j| / (|x_j| + |y_j|), a term 0 where both are 0
(ecology, rank comparison; every term lies in [0, 1], so small values weigh as much as large ones).

One block of 256 threads per row: each thread sums its strided terms in fp32, then a tree reduction in shared
memory halves the active threads each step with a __syncthreads() after every step. size_t row offsets."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
extern "C" __global__ void canberra(const float* __restrict__ x, const float* __restrict__ y,
                                    float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    const float* yr = y + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float a = xr[j], b = yr[j];
        const float den = fabsf(a) + fabsf(b);
        acc += den != 0.0f ? fabsf(a - b) / den : 0.0f;
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = buf[0];
}
"""

canberra_kernel = kcheck.CudaKernel(SOURCE, "canberra", grid=lambda x, y, out, m, n: (m,), block=(256,))


def canberra_distance(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        canberra_kernel(x.contiguous(), y.contiguous(), out, m, n)


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    den = x.abs() + y.abs()
    terms = torch.where(den != 0, (x - y).abs() / den, torch.zeros_like(den))
    return terms.sum(-1)


spec = kcheck.Spec(
    name="cuda_canberra_distance",
    kernel=canberra_distance,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    outputs=[kcheck.Tensor("M", name="distance")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1000)},
    dtypes=["fp32"],
    reduce=["N"],
)

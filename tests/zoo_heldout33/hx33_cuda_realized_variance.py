"""CUDA C realized variance of intraday log-price paths, one path per row::

    RV[m] = sum over i = 1..N-1 of (x[m, i] - x[m, i-1])^2

One block of 256 threads per row: each thread sums the squared increments of a strided subset of the row in fp32,
then a tree reduction in shared memory with a __syncthreads() after every halving. size_t offsets. Runs on a GPU
through CuPy; without one kcheck compiles it for sm_90 and skips its cases."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
extern "C" __global__ void realized_variance(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, tx = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = tx + 1; j < n; j += blockDim.x) {
        const float d = xr[j] - xr[j - 1];
        acc += d * d;
    }
    buf[tx] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tx < s) {
            buf[tx] += buf[tx + s];
            __syncthreads();
        }
    }
    if (tx == 0) out[row] = buf[0];
}
"""

rv_kernel = kcheck.CudaKernel(SOURCE, "realized_variance", grid=lambda x, out, m, n: (m,), block=(256,))


def realized_variance(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        rv_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.diff(dim=-1).pow(2).sum(-1)


spec = kcheck.Spec(
    name="cuda_realized_variance",
    kernel=realized_variance,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="log_prices")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=390)},
    dtypes=["fp32"],
    reduce=["N"],
)

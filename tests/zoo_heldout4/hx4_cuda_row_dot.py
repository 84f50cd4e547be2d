"""CUDA C row-wise dot product of two matrices: out[m] = sum_n a[m, n] * b[m, n]. One block of 256 threads per
row, fp32 partial sums per thread, a shared-memory tree reduction, size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_dot(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* ar = a + (size_t)row * (size_t)n;
    const float* br = b + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += ar[j] * br[j];
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

row_dot_kernel = kcheck.CudaKernel(SOURCE, "row_dot", grid=lambda a, b, out, m, n: (m,), block=(256,))


def row_dot(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    m, n = a.shape
    if m:
        row_dot_kernel(a.contiguous(), b.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx4_cuda_row_dot",
    kernel=row_dot,
    reference=lambda a, b: (a * b).sum(-1),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"

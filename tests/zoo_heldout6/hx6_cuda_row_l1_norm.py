"""CUDA C row L1 norm, sum_j |x[i, j]|: one block of 256 threads per row, a strided partial sum of |x| per thread
(fp32), then a tree reduction in shared memory among the threads that hold part of the row. size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_l1(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += fabsf(xr[j]);
    buf[t] = acc;
    if (t < n) {
        /* threads that hold part of the row take part in the reduction */
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (t < s) buf[t] += buf[t + s];
            __syncthreads();
        }
        if (t == 0) out[row] = buf[0];
    }
}
"""

row_l1_kernel = kcheck.CudaKernel(SOURCE, "row_l1", grid=lambda x, out, m, n: (m,), block=(256,))


def row_l1_norm(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0:
        return
    if n == 0:
        out.zero_()
        return
    row_l1_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx6_cuda_row_l1_norm",
    kernel=row_l1_norm,
    reference=lambda x: torch.linalg.vector_norm(x, ord=1, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"

"""CUDA C row L2 norms: out[m] = sqrt(sum_n x[m, n]^2). One block of 256 threads per row: each thread accumulates a
strided partial sum of squares (fp32, size_t offsets), then the block combines the partials through shared memory."""

# GPU only: a CUDA C kernel (its cases are skipped without a GPU).

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"
GPU_ONLY = True

SOURCE = r"""
extern "C" __global__ void row_norm(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float partial[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float v = xr[j];
        acc += v * v;
    }
    partial[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
    }
    __syncthreads();
    if (t == 0) out[row] = sqrtf(partial[0]);
}
"""

row_norm_kernel = kcheck.CudaKernel(SOURCE, "row_norm", grid=lambda x, out, m, n: (m,), block=(256,))


def row_norm(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_norm_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="ho_cuda_rownorm",
    kernel=row_norm,
    reference=lambda x: x.pow(2).sum(-1).sqrt(),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C row L2 normalization: out[m, n] = x[m, n] / max(||x[m, :]||_2, 1e-12), as F.normalize(x, dim=-1).

One block of 256 threads per row: a strided sum of squares per thread, a tree reduction in shared memory, then each
thread divides its elements by the norm. fp32, size_t offsets. Runs on a GPU through CuPy; without one kcheck
compiles it for sm_90 and skips its cases.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_l2_normalize(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float v = xr[j];
        acc += v * v;
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    const float denom = fmaxf(sqrtf(buf[0]), 1e-12f);
    for (int j = t; j < n; j += blockDim.x) orow[j] = xr[j] / denom;
}
"""

l2_kernel = kcheck.CudaKernel(SOURCE, "row_l2_normalize", grid=lambda x, out, m, n: (m,), block=(256,))


def row_l2_normalize(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        l2_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx10_cuda_row_l2_normalize",
    kernel=row_l2_normalize,
    reference=lambda x: torch.nn.functional.normalize(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"

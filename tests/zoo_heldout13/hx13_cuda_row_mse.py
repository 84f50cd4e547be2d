"""CUDA C per-sample mean squared error (regression heads, reconstruction losses): out[m] = mean_j (a - b)^2.

One block of 256 threads per row (rows on grid.x), strided per-thread partial sums in fp32, then a tree reduction
in shared memory. size_t row offsets; rows are never longer than an int.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_mse(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                   int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const size_t base = (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float d = a[base + j] - b[base + j];
        acc += d * d;
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = buf[0] / (float)n;
}
"""

mse_kernel = kcheck.CudaKernel(SOURCE, "row_mse", grid=lambda a, b, out, m, n: (m,), block=(256,))


def row_mse(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, N = a.shape
    out = torch.empty((M,), dtype=torch.float32, device=a.device)
    if M:
        mse_kernel(a.contiguous(), b.contiguous(), out, M, N)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a - b).pow(2).mean(dim=-1)


BUG_CLASS = "divergent-barrier"

spec = kcheck.Spec(
    name="hx13_cuda_row_mse",
    kernel=row_mse,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="a"), kcheck.Tensor("M", "N", name="b")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1, large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)

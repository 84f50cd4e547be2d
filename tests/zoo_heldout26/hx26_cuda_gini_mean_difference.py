"""CUDA C Gini mean difference of each row of x[M, N], a robust dispersion statistic:

    GMD = sum over i, j of |x_i - x_j| / (N (N - 1))       (0 for N < 2)

One block of 128 threads per row. Each thread owns one element of the current 128-element chunk of the row and
sums its distances to the whole row, which the block streams through shared memory 128 elements at a time (a
__syncthreads() after staging and after use); the per-thread totals are then reduced in shared memory. A row with a
NaN or an infinity gives NaN (|inf - inf| is NaN)."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define TB 128
extern "C" __global__ void gini_mean_difference(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float tile[TB];
    __shared__ float part[TB];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * n;
    float total = 0.0f;
    for (int i0 = 0; i0 + t < n; i0 += TB) {
        const int i = i0 + t;
        const float xi = i < n ? xr[i] : 0.0f;
        float acc = 0.0f;
        for (int j0 = 0; j0 < n; j0 += TB) {
            tile[t] = j0 + t < n ? xr[j0 + t] : 0.0f;
            __syncthreads();
            const int jn = min(TB, n - j0);
            for (int jj = 0; jj < jn; ++jj) acc += fabsf(xi - tile[jj]);
            __syncthreads();
        }
        if (i < n) total += acc;
    }
    part[t] = total;
    __syncthreads();
    for (int s = TB / 2; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = n > 1 ? part[0] / ((float)n * (float)(n - 1)) : 0.0f;
}
"""

gmd_kernel = kcheck.CudaKernel(SOURCE, "gini_mean_difference", grid=lambda x, out, m, n: (m,), block=(128,))


def gini_mean_difference(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = x.shape
    if M:
        gmd_kernel(x.contiguous(), out, M, N)


def reference(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    if N < 2:
        return torch.zeros((M,), dtype=x.dtype, device=x.device)
    s, _ = torch.sort(x, dim=-1)
    weight = 2.0 * torch.arange(N, dtype=x.dtype, device=x.device) - (N - 1)  # x_(i) is above i others, below N-1-i
    gmd = 2.0 * (s * weight).sum(-1) / (N * (N - 1))
    return torch.where(torch.isfinite(x).all(-1), gmd, torch.full_like(gmd, float("nan")))


spec = kcheck.Spec(
    name="hx26_cuda_gini_mean_difference",
    kernel=gini_mean_difference,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M", name="gmd")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=300, max=4096, real=(), large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C z-loss term of PaLM's auxiliary loss, per row of logits: out[m] = logsumexp(x[m, :])^2.

One block of 256 threads per row (rows on grid.x): a max pass and a sum-of-exp pass, each reduced with warp
shuffles and then across the warps through shared memory. fp32, size_t row offsets; rows are never longer than
an int.
"""

import torch

import kcheck

SOURCE = r"""
__device__ __forceinline__ float nan_max(float a, float b) { return (a > b || a != a) ? a : b; }

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void zloss_rows(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float smax[32];
    __shared__ float ssum[32];
    const int row = blockIdx.x, t = threadIdx.x, lane = t & 31, warp = t >> 5, nwarps = blockDim.x >> 5;
    const float* xr = x + (size_t)row * (size_t)n;

    float v = -INFINITY;
    for (int j = t; j < n; j += blockDim.x) v = nan_max(v, xr[j]);
    v = warp_max(v);
    if (lane == 0) smax[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = lane < nwarps ? smax[lane] : -INFINITY;
        w = warp_max(w);
        if (lane == 0) smax[0] = w;
    }
    __syncthreads();
    const float row_max = smax[0];

    float s = 0.0f;
    for (int j = t; j < n; j += blockDim.x) s += expf(xr[j] - row_max);
    s = warp_sum(s);
    if (lane == 0) ssum[warp] = s;
    if (t == 0) {
        float total = 0.0f;
        for (int w = 0; w < nwarps; ++w) total += ssum[w];
        const float lse = isinf(row_max) ? row_max : row_max + logf(total);
        out[row] = lse * lse;
    }
}
"""

zloss_kernel = kcheck.CudaKernel(SOURCE, "zloss_rows", grid=lambda x, out, m, n: (m,), block=(256,))


def zloss(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M:
        zloss_kernel(x.contiguous(), out, M, N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(x, dim=-1) ** 2


BUG_CLASS = "missing-syncthreads"

spec = kcheck.Spec(
    name="hx13_cuda_zloss",
    kernel=zloss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1, large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C per-token dynamic quantization scale (W8A8 inference): scale[m] = max_j |x[m, j]| / 127.

One block of 256 threads per row (rows on grid.x), a strided per-thread max, warp shuffles, then the warps'
partials through shared memory. NaN propagates (a NaN row gets a NaN scale). Row offsets are size_t; the row
length fits an int (N is not grown past 2**31; rows are).
"""

import torch

import kcheck

SOURCE = r"""
__device__ __forceinline__ float nan_max(float a, float b) { return (a > b || a != a) ? a : b; }

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

extern "C" __global__ void token_absmax_scale(const float* __restrict__ x, float* __restrict__ scale, int m, int n) {
    __shared__ float part[32];
    const int row = blockIdx.x, t = threadIdx.x, lane = t & 31, warp = t >> 5, nwarps = blockDim.x >> 5;
    const float* xr = x + (size_t)row * (size_t)n;
    float v = 0.0f;
    for (int j = t; j < n; j += blockDim.x) v = nan_max(v, fabsf(xr[j]));
    v = warp_max(v);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? part[lane] : 0.0f;
        v = warp_max(v);
        if (lane == 0) scale[row] = v / 127.0f;
    }
}
"""

absmax_kernel = kcheck.CudaKernel(SOURCE, "token_absmax_scale", grid=lambda x, s, m, n: (m,), block=(256,))


def token_absmax_scale(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M:
        absmax_kernel(x.contiguous(), out, M, N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    if x.shape[1] == 0:
        return torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)
    return x.abs().amax(dim=-1) / 127.0


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx13_cuda_token_absmax",
    kernel=token_absmax_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
)

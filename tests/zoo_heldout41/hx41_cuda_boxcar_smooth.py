"""CUDA C boxcar (moving-average) smoothing of a 1-D series (oceanography: tide-gauge records), window 2R+1 = 7:
y[i] = mean of x[j] over the valid j in [i - R, i + R] (the window shrinks at both ends). Blocks of 256 threads
stage their samples and an R-sample halo on each side in shared memory (zeros outside the series), then each
thread sums its window from shared memory."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define R 3
#define BS 256
extern "C" __global__ void boxcar_smooth(const float* __restrict__ x, float* __restrict__ y, int n) {
    __shared__ float tile[BS + 2 * R];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BS + t;
    tile[t + R] = i < n ? x[i] : 0.0f;
    if (t < R) {
        const long long lo = i - R, hi = i + BS;
        tile[t] = lo >= 0 && lo < n ? x[lo] : 0.0f;
        tile[t + BS + R] = hi < n ? x[hi] : 0.0f;
    }
    if (i < n) {
        __syncthreads();
        float s = 0.0f;
        for (int k = -R; k <= R; ++k) s += tile[t + R + k];
        const long long first = i - R < 0 ? 0 : i - R;
        const long long last = i + R > n - 1 ? n - 1 : i + R;
        y[i] = s / (float)(last - first + 1);
    }
}
"""

boxcar_kernel = kcheck.CudaKernel(SOURCE, "boxcar_smooth", grid=lambda x, y, n: ((n + 255) // 256,), block=(256,))


def boxcar_smooth(x: torch.Tensor, y: torch.Tensor) -> None:
    n = x.shape[0]
    if n:
        boxcar_kernel(x.contiguous(), y, n)


def reference(x):
    n = x.shape[0]
    r = 3
    pad = torch.nn.functional.pad(x[None, None], (r, r))[0, 0]
    s = sum(pad[k:k + n] for k in range(2 * r + 1))
    i = torch.arange(n, device=x.device)
    count = (torch.clamp(i + r, max=n - 1) - torch.clamp(i - r, min=0) + 1).to(x.dtype)
    return s / count


spec = kcheck.Spec(
    name="cuda_boxcar_smooth",
    kernel=boxcar_smooth,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=5000)},
    dtypes=["fp32"],
    properties=[kcheck.props.linear()],
)

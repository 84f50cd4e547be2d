"""CUDA C per-row absmax scaling (the first step of per-token quantization): amax[m] = max_n |x[m, n]| and
y[m, n] = x[m, n] / max(amax[m], 1e-12).

One block of 256 threads per row. Each thread first takes runs of 4 consecutive elements (a stride of 1024 between
its runs) and keeps its largest |x|; the block combines the partial maxima with a tree in shared memory, then
every thread scales its share of the row, one element per 256. NaN propagates (fmaxf alone would drop it).
fp32, size_t row offsets.
"""

import torch

import kcheck

SOURCE = r"""
#define TB 256
#define RUN 4
__device__ __forceinline__ float nanmax(float a, float b) { return (a != a || a > b) ? a : b; }

extern "C" __global__ void row_absmax(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ amax,
                                      int m, int n) {
    __shared__ float buf[TB];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * n;
    float acc = 0.0f;
    for (int j = t * RUN; j < n; j += TB * RUN)
        for (int k = 0; k < RUN && j + k < n; ++k) acc = nanmax(acc, fabsf(xr[j + k]));
    if (t * RUN < n) {
        buf[t] = acc;
        __syncthreads();
        const int active = min(TB, (n + RUN - 1) / RUN);
        for (int s = TB / 2; s > 0; s >>= 1) {
            if (t < s && t + s < active) buf[t] = nanmax(buf[t], buf[t + s]);
            __syncthreads();
        }
    }
    __syncthreads();
    const float a = buf[0];
    const float inv = 1.0f / fmaxf(a, 1e-12f);
    for (int j = t; j < n; j += TB) y[(size_t)row * n + j] = xr[j] * inv;
    if (t == 0) amax[row] = a;
}
"""

absmax_kernel = kcheck.CudaKernel(SOURCE, "row_absmax", grid=lambda x, y, amax, m, n: (m,), block=(256,))


def row_absmax_scale(x: torch.Tensor, y: torch.Tensor, amax: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0:
        return
    if n == 0:
        amax.zero_()
        return
    absmax_kernel(x.contiguous(), y, amax, m, n)


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    amax = x.abs().amax(dim=-1)
    return x / amax.clamp(min=1e-12)[:, None], amax


spec = kcheck.Spec(
    name="hx5_cuda_row_absmax",
    kernel=row_absmax_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=2048)},
    dtypes=["fp32"],
)

BUG_CLASS = "divergent-barrier"

"""CUDA C Spencer 15-point moving average of time series (actuarial graduation / econometrics): for each series
(row) of x [series, T],

    y[t] = (1/320) sum_{k=-7..7} w_k x[t + k],
    w = (-3, -6, -5, 3, 21, 46, 67, 74, 67, 46, 21, 3, -5, -6, -3)

with the series' first and last values repeated past its ends. One block of 256 threads per 256-sample segment of
a row (rows on grid x, segments on grid y): the block stages its segment and a halo of 7 samples each side in
shared memory (all its threads take part), waits at a __syncthreads(), and then each thread inside the series
writes its smoothed sample. fp32, size_t row offsets.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

WEIGHTS = (-3.0, -6.0, -5.0, 3.0, 21.0, 46.0, 67.0, 74.0, 67.0, 46.0, 21.0, 3.0, -5.0, -6.0, -3.0)

SOURCE = r"""
#define SEG 256
#define HALF 7
extern "C" __global__ void spencer15(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    const float w[2 * HALF + 1] = {-3.f, -6.f, -5.f, 3.f, 21.f, 46.f, 67.f, 74.f, 67.f, 46.f, 21.f, 3.f, -5.f,
                                   -6.f, -3.f};
    __shared__ float tile[SEG + 2 * HALF];
    const int row = blockIdx.x;
    const int base = blockIdx.y * SEG;
    const int col = base + threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    if (col >= n) return;
    for (int k = threadIdx.x; k < SEG + 2 * HALF; k += blockDim.x) {
        const int c = min(max(base + k - HALF, 0), n - 1);
        tile[k] = xr[c];
    }
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < 2 * HALF + 1; ++k) acc += w[k] * tile[threadIdx.x + k];
    out[(size_t)row * (size_t)n + col] = acc * (1.0f / 320.0f);
}
"""

spencer_kernel = kcheck.CudaKernel(SOURCE, "spencer15", grid=lambda x, out, m, n: (m, (n + 255) // 256),
                                   block=(256,))


def spencer_moving_average(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        spencer_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    w = torch.tensor(WEIGHTS, dtype=x.dtype, device=x.device) / 320.0
    idx = (torch.arange(n, device=x.device)[:, None] + torch.arange(-7, 8, device=x.device)[None, :]).clamp(0, n - 1)
    return x[:, idx] @ w


spec = kcheck.Spec(
    name="hx37_cuda_spencer_moving_average",
    kernel=spencer_moving_average,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="series")],
    outputs=[kcheck.Tensor("M", "T")],
    # grid.y (segments of T) is limited to 65535 blocks: T stays out of the past-2**31 case, M grows instead
    dims={"M": kcheck.Dim(nominal=64), "T": kcheck.Dim(nominal=600, min=1, large=False)},
    dtypes=["fp32"],
    properties=[kcheck.props.linear()],
)

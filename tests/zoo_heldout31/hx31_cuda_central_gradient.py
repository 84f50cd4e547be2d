"""CUDA C fourth-order central difference along each row of a sampled signal:
d[m, n] = (x[n-2] - 8 x[n-1] + 8 x[n+1] - x[n+2]) / (12 h), with the edge samples replicated past both ends.
One block of 256 threads per 256 outputs of one row: each thread stages its sample in shared memory, the first two
threads also the two-sample halos on either side, then every thread reads its four neighbours from the tile. Rows on
grid x (up to 2^31-1), column tiles on grid y; size_t row offsets."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TILE 256
#define R 2
extern "C" __global__ void central_gradient(const float* __restrict__ x, float* __restrict__ out, int m, int n,
                                            float inv12h) {
    __shared__ float tile[TILE + 2 * R];
    const int t = threadIdx.x;
    const int start = blockIdx.y * TILE;
    const int col = start + t;
    const float* xr = x + (size_t)blockIdx.x * n;
    tile[t + R] = xr[min(col, n - 1)];
    if (t < R) {
        tile[t] = xr[max(start - R + t, 0)];
        tile[TILE + R + t] = xr[min(start + TILE + t, n - 1)];
    }
    if (col < n) {
        const float d = (tile[t] - 8.0f * tile[t + 1] + 8.0f * tile[t + 3] - tile[t + 4]) * inv12h;
        out[(size_t)blockIdx.x * n + col] = d;
    }
}
"""

gradient_kernel = kcheck.CudaKernel(SOURCE, "central_gradient",
                                    grid=lambda x, out, m, n, inv12h: (m, (n + 255) // 256), block=(256,))


def central_gradient(x: torch.Tensor, h: float, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        gradient_kernel(x.contiguous(), out, m, n, 1.0 / (12.0 * h))


def reference(x: torch.Tensor, h: float) -> torch.Tensor:
    n = x.shape[-1]
    idx = torch.arange(n, device=x.device)

    def at(k: int) -> torch.Tensor:
        return x[:, (idx + k).clamp(0, max(n - 1, 0))]

    return (at(-2) - 8.0 * at(-1) + 8.0 * at(1) - at(2)) / (12.0 * h)


spec = kcheck.Spec(
    name="hx31_cuda_central_gradient",
    kernel=central_gradient,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="signal"), kcheck.Scalar(0.01, name="h")],
    outputs=[kcheck.Tensor("M", "N")],
    # grid.y (column tiles) is limited to 65535 blocks: N stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000, large=False)},
    dtypes=["fp32"],
    properties=[kcheck.props.linear(0)],
)

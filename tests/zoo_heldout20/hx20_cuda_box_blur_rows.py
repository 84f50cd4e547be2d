"""CUDA C horizontal box blur of radius R = 4 along each row (window of 9, edges clamped to the row):

    out[r, j] = (1 / 9) * sum_{d=-4..4} x[r, clamp(j + d, 0, n - 1)]

One block of 256 threads per (row, 256-column tile): the tile and its 4-element halo on each side are staged in
shared memory, a __syncthreads(), then each thread sums its window from shared memory. size_t row offsets.
"""

import torch
import torch.nn.functional as F

import kcheck

RADIUS = 4

SOURCE = r"""
#define TILE 256
#define R 4
extern "C" __global__ void box_blur_rows(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[TILE + 2 * R];
    const int row = blockIdx.y;
    const int t = threadIdx.x;
    const int j0 = blockIdx.x * TILE;
    const float* xr = x + (size_t)row * (size_t)n;
    for (int k = t; k < TILE + 2 * R; k += blockDim.x) {
        int j = j0 + k - R;
        j = j < 0 ? 0 : (j > n - 1 ? n - 1 : j);
        buf[k] = xr[j];
    }
    const int j = j0 + t;
    if (j < n) {
        float acc = 0.0f;
        for (int d = 0; d <= 2 * R; ++d) acc += buf[t + d];
        out[(size_t)row * (size_t)n + j] = acc * (1.0f / (2 * R + 1));
    }
}
"""

box_blur_kernel = kcheck.CudaKernel(SOURCE, "box_blur_rows", grid=lambda x, out, m, n: ((n + 255) // 256, m),
                                    block=(256,))


def box_blur_rows(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        box_blur_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    padded = F.pad(x[None], (RADIUS, RADIUS), mode="replicate")[0]
    return padded.unfold(-1, 2 * RADIUS + 1, 1).mean(-1)


spec = kcheck.Spec(
    name="cuda_box_blur_rows",
    kernel=box_blur_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, max=65535, real=()), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

BUG_CLASS = "missing-syncthreads"

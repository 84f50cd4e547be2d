"""CUDA C tiled transpose: 32x32 tiles staged in shared memory (padded to 33 columns against bank conflicts),
32x8 threads per block, guards on both edges, size_t offsets."""

import torch

import kcheck

SOURCE = r"""
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.y * TILE + threadIdx.x;  /* input column; row tiles on x (up to 2^31-1 blocks) */
    int row = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS) {
        if (row + k < m && col < n) tile[threadIdx.y + k][threadIdx.x] = x[(size_t)(row + k) * n + col];
    }
    __syncthreads();
    col = blockIdx.x * TILE + threadIdx.x;  /* output column = input row */
    row = blockIdx.y * TILE + threadIdx.y;  /* output row = input column */
    for (int k = 0; k < TILE; k += ROWS) {
        if (row + k < n && col < m) out[(size_t)(row + k) * m + col] = tile[threadIdx.x][threadIdx.y + k];
    }
}
"""

transpose_kernel = kcheck.CudaKernel(SOURCE, "transpose", grid=lambda x, out, m, n: ((m + 31) // 32, (n + 31) // 32),
                                     block=(32, 8))


def transpose(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        transpose_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="cuda_transpose",
    kernel=transpose,
    reference=lambda x: x.t().contiguous(),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("N", "M")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=512, large=False)},  # grid.y: N tiles <= 65535
    dtypes=["fp32"],
)

"""CUDA C tiled GEMM through shared memory: C = A @ B, 32x32 output tiles, 32x32 threads, the K loop staging one
32x32 tile of A and of B per step with a __syncthreads() before and after the inner product; zero-filled tile
edges; fp32 accumulation, each K tile's products summed apart before they join the running total; size_t offsets.

Two-level summation because one running sum over K = 128256 products of the same sign (kcheck's pairwise case with
mean-shifted data) lost three digits on an H200 (relative error 8e-4, cuBLAS 3e-7): every addition to a total far
larger than its term rounds the same way. Summing 32 products first makes the running total take 32 times fewer,
32 times larger steps."""

import torch

import kcheck

SOURCE = r"""
#define T 32
extern "C" __global__ void gemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                int m, int n, int k) {
    __shared__ float as[T][T];
    __shared__ float bs[T][T];
    const int row = blockIdx.x * T + threadIdx.y, col = blockIdx.y * T + threadIdx.x;  /* rows on x: 2^31-1 blocks */
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += T) {
        const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < m && ka < k) ? a[(size_t)row * k + ka] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (kb < k && col < n) ? b[(size_t)kb * n + col] : 0.0f;
        __syncthreads();
        float part = 0.0f;  /* each K tile summed apart, then added: two-level summation */
        for (int i = 0; i < T; ++i) part += as[threadIdx.y][i] * bs[i][threadIdx.x];
        acc += part;
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = acc;
}
"""

gemm_kernel = kcheck.CudaKernel(SOURCE, "gemm", grid=lambda a, b, c, m, n, k: ((m + 31) // 32, (n + 31) // 32),
                                block=(32, 32))


def gemm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    m, k = a.shape
    n = b.shape[1]
    if m and n:
        if k == 0:
            c.zero_()
            return
        gemm_kernel(a.contiguous(), b.contiguous(), c, m, n, k)


spec = kcheck.Spec(
    name="cuda_gemm",
    kernel=gemm,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    # grid.y (N tiles) is limited to 65535 blocks: N stays out of the past-2**31 case, M or K grows instead
    dims={"M": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=128, large=False)},
    dtypes=["fp32"],
    reduce=["K"],
    properties=[kcheck.props.linear(0)],
)

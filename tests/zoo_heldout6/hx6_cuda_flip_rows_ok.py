"""CUDA C row reversal, torch.flip(x, dims=[-1]) on a 2-D fp32 tensor, staged through shared memory: block
(row, k) loads the row's k-th chunk of 256 elements into shared memory, and after a __syncthreads() writes it
reversed to the mirrored chunk, so both the reads and the writes are coalesced. Rows on grid.x (up to 2**31-1),
chunks on grid.y; size_t offsets."""

import torch

import kcheck

SOURCE = r"""
#define CH 256
extern "C" __global__ void flip_rows(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[CH];
    const int row = blockIdx.x, t = threadIdx.x;
    const int base = blockIdx.y * CH;
    const int len = min(CH, n - base);
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    if (t < len) buf[t] = xr[base + t];
    __syncthreads();
    if (t < len) orow[n - base - len + t] = buf[len - 1 - t];
}
"""

flip_kernel = kcheck.CudaKernel(SOURCE, "flip_rows", grid=lambda x, out, m, n: (m, (n + 255) // 256),
                                block=(256,))


def flip_rows(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        flip_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx6_cuda_flip_rows_ok",
    kernel=flip_rows,
    reference=lambda x: torch.flip(x, dims=[-1]),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    # grid.y (chunks of N) is limited to 65535 blocks and n is a 32-bit int: M grows in the past-2**31 case
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
)

BUG_CLASS = None

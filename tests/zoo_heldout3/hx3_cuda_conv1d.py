"""CUDA C 1-D convolution with "same" zero padding over each row of x (B, L) with a KSIZE-tap filter, as
`F.conv1d(x[:, None], w[None, None], padding=KSIZE // 2)`. A block of 256 threads produces 256 outputs of one row:
the input tile and its halo of RADIUS elements on each side are staged in shared memory, then each thread takes the
dot product of its window with the filter. size_t offsets."""

import torch

import kcheck

KSIZE = 7

SOURCE = r"""
#define TILE 256
#define RADIUS 3
extern "C" __global__ void conv1d_same(const float* __restrict__ x, const float* __restrict__ w,
                                       float* __restrict__ out, int L) {
    __shared__ float tile[TILE + 2 * RADIUS];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * TILE + t;
    const float* xr = x + (size_t)blockIdx.y * (size_t)L;
    tile[t + RADIUS] = (i < L) ? xr[i] : 0.0f;
    if (t < RADIUS) {
        const long long left = i - RADIUS;
        tile[t] = (left >= 0 && left < L) ? xr[left] : 0.0f;
    }
    if (t >= TILE - RADIUS) {
        const long long right = i + RADIUS;
        tile[t + 2 * RADIUS] = (right < L) ? xr[right] : 0.0f;
    }
    if (i < L) {
        float acc = 0.0f;
        for (int k = 0; k < 2 * RADIUS + 1; ++k) acc += tile[t + k] * w[k];
        out[(size_t)blockIdx.y * (size_t)L + i] = acc;
    }
}
"""

conv1d_kernel = kcheck.CudaKernel(SOURCE, "conv1d_same", grid=lambda x, w, out, L: ((L + 255) // 256, x.shape[0]),
                                  block=(256,))


def conv1d_same(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> None:
    B, L = x.shape
    if B and L:
        conv1d_kernel(x.contiguous(), w.contiguous(), out, L)


spec = kcheck.Spec(
    name="hx3_cuda_conv1d",
    kernel=conv1d_same,
    reference=lambda x, w: torch.nn.functional.conv1d(x[:, None], w[None, None], padding=KSIZE // 2)[:, 0],
    inputs=[kcheck.Tensor("B", "L"), kcheck.Tensor(KSIZE, name="w", pattern="randn")],
    outputs=[kcheck.Tensor("B", "L")],
    dims={"B": kcheck.Dim(nominal=16, large=False), "L": kcheck.Dim(nominal=4096)},  # grid.y: B <= 65535
    dtypes=["fp32"],
)

BUG_CLASS = "missing-syncthreads"

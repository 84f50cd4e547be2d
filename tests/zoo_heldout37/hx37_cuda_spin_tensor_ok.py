"""CUDA C spin tensor (continuum mechanics): the antisymmetric part of a velocity-gradient matrix L [N, N],

    W = (L - L^T) / 2

Each 32x8-thread block owns a 32x32 output tile: it stages the mirrored tile of L (rows and columns swapped) in
shared memory, padded to 33 columns against bank conflicts, waits at a __syncthreads(), and combines it with its own
tile read directly; guards on both edges, size_t offsets. A correct control.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
#define TILE 32
#define ROWS 8
extern "C" __global__ void spin_tensor(const float* __restrict__ l, float* __restrict__ w, int n) {
    __shared__ float mirror[TILE][TILE + 1];
    const int r0 = blockIdx.x * TILE;  /* row tiles on x (up to 2^31-1 blocks) */
    const int c0 = blockIdx.y * TILE;
    for (int k = 0; k < TILE; k += ROWS) {  /* mirror[a][b] = L[c0 + a][r0 + b] */
        const int r = c0 + threadIdx.y + k, c = r0 + threadIdx.x;
        if (r < n && c < n) mirror[threadIdx.y + k][threadIdx.x] = l[(size_t)r * n + c];
    }
    __syncthreads();
    for (int k = 0; k < TILE; k += ROWS) {
        const int r = r0 + threadIdx.y + k, c = c0 + threadIdx.x;
        if (r < n && c < n) {
            w[(size_t)r * n + c] = 0.5f * (l[(size_t)r * n + c] - mirror[threadIdx.x][threadIdx.y + k]);
        }
    }
}
"""

spin_kernel = kcheck.CudaKernel(SOURCE, "spin_tensor", grid=lambda l, w, n: ((n + 31) // 32, (n + 31) // 32),
                                block=(32, 8))


def spin_tensor(l: torch.Tensor, w: torch.Tensor) -> None:
    n = l.shape[0]
    if n:
        spin_kernel(l.contiguous(), w, n)


spec = kcheck.Spec(
    name="hx37_cuda_spin_tensor_ok",
    kernel=spin_tensor,
    reference=lambda l: 0.5 * (l - l.T),
    inputs=[kcheck.Tensor("N", "N", name="velocity_gradient")],
    outputs=[kcheck.Tensor("N", "N")],
    dims={"N": kcheck.Dim(nominal=200)},
    dtypes=["fp32"],
    properties=[kcheck.props.linear()],
)

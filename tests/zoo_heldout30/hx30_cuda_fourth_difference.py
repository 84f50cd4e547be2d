"""CUDA C fourth difference along rows (hyperdiffusion / beam-bending stencil) with replicated edges:

    out[i] = x[i-2] - 4 x[i-1] + 6 x[i] - 4 x[i+1] + x[i+2],   x[j] = x[clamp(j, 0, N-1)]

The weights sum to zero, so the stencil is applied to the neighbours' offsets from the centre value (exact when
they are close: no cancellation on data with a large mean). Rows on blockIdx.x, 256-column chunks on blockIdx.y; each block stages its chunk plus a 2-element halo on either side
in shared memory, waits for the whole tile, then every thread reads its neighbours from it. size_t row offsets."""

import torch
import torch.nn.functional as F

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TPB 256
#define HALO 2
extern "C" __global__ void fourth_difference(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float tile[TPB + 2 * HALO];
    const int row = blockIdx.x;
    const int start = blockIdx.y * TPB;
    const float* xr = x + (size_t)row * n;
    for (int k = threadIdx.x; k < TPB + 2 * HALO; k += blockDim.x) {
        int j = start + k - HALO;
        j = j < 0 ? 0 : (j > n - 1 ? n - 1 : j);
        tile[k] = xr[j];
    }
    const int i = start + threadIdx.x;
    if (i < n) {
        const float* t = tile + threadIdx.x + HALO;
        const float c = t[0];  /* weights sum to 0: offsets from the centre are exact for close values */
        out[(size_t)row * n + i] = ((t[-2] - c) + (t[2] - c)) - 4.0f * ((t[-1] - c) + (t[1] - c));
    }
}
"""

fourth_difference_kernel = kcheck.CudaKernel(SOURCE, "fourth_difference",
                                             grid=lambda x, out, m, n: (m, (n + 255) // 256), block=(256,))


def fourth_difference(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        fourth_difference_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    p = F.pad(x[None], (2, 2), mode="replicate")[0]
    n = x.shape[-1]
    c = p[:, 2:n + 2]  # the same centred form as the kernel (same NaN/inf semantics)
    return ((p[:, 0:n] - c) + (p[:, 4:n + 4] - c)) - 4.0 * ((p[:, 1:n + 1] - c) + (p[:, 3:n + 3] - c))


spec = kcheck.Spec(
    name="hx30_cuda_fourth_difference",
    kernel=fourth_difference,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000, large=False)},  # grid.y: N chunks <= 65535
    dtypes=["fp32"],
)

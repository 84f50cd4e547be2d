"""Radar (CUDA C): cell-averaging CFAR detection threshold along each range profile. For cell c the noise level is
the mean of the training cells c +- (GUARD + 1 .. GUARD + TRAIN) that lie inside the profile (the guard cells next
to the cell under test are skipped), and the threshold is ALPHA times it. A block of 256 threads handles 256 cells
of one profile: it stages them with a halo of GUARD + TRAIN cells on each side in shared memory (zero outside the
profile), synchronises, then each thread sums its window from the tile. size_t offsets."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

GUARD = 2
TRAIN = 8
ALPHA = 4.0

SOURCE = r"""
#define GUARD 2
#define TRAIN 8
#define HALO (GUARD + TRAIN)
#define BS 256
extern "C" __global__ void cfar_threshold(const float* __restrict__ x, float* __restrict__ out, int n, float alpha) {
    __shared__ float tile[BS + 2 * HALO];
    const int t = threadIdx.x;
    const int col0 = blockIdx.x * BS;
    const float* xr = x + (size_t)blockIdx.y * (size_t)n;
    for (int i = t; i < BS + 2 * HALO; i += BS) {
        const int c = col0 - HALO + i;
        tile[i] = (c >= 0 && c < n) ? xr[c] : 0.0f;
    }
    const int c = col0 + t;
    if (c < n) {
        float s = 0.0f;
        int cnt = 0;
        for (int k = GUARD + 1; k <= HALO; ++k) {
            if (c - k >= 0) { s += tile[t + HALO - k]; ++cnt; }
            if (c + k < n) { s += tile[t + HALO + k]; ++cnt; }
        }
        out[(size_t)blockIdx.y * (size_t)n + c] = cnt ? alpha * s / (float)cnt : 0.0f;
    }
}
"""

cfar_kernel = kcheck.CudaKernel(SOURCE, "cfar_threshold", grid=lambda x, out, n, alpha: ((n + 255) // 256, x.shape[0]),
                                block=(256,))


def cfar_threshold(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        cfar_kernel(x.contiguous(), out, n, ALPHA)


def reference(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    halo = GUARD + TRAIN
    xp = torch.nn.functional.pad(x, (halo, halo))
    ones = torch.nn.functional.pad(torch.ones_like(x), (halo, halo))
    s = torch.zeros_like(x)
    cnt = torch.zeros_like(x)
    for k in range(GUARD + 1, halo + 1):
        for off in (-k, k):
            s = s + xp[:, halo + off:halo + off + n]
            cnt = cnt + ones[:, halo + off:halo + off + n]
    return torch.where(cnt > 0, ALPHA * s / cnt.clamp(min=1), torch.zeros_like(s))


spec = kcheck.Spec(
    name="hx36_cuda_cfar_threshold",
    kernel=cfar_threshold,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="power")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, large=False), "N": kcheck.Dim(nominal=1000)},  # grid.y: profiles <= 65535
    dtypes=["fp32"],
    properties=[kcheck.props.linear()],
)

"""CUDA C 3x3 local variance filter (texture and noise maps, focus measures): for each pixel of an image [H, W],
the variance of its 3x3 neighbourhood, borders replicated (neighbour coordinates clamped into the image), computed
as the mean of squared deviations from the neighbourhood mean (no E[x^2] - E[x]^2). Each 16x16 block stages its
18x18 tile with the one-pixel halo in shared memory (256 threads load 324 values in a strided loop), waits for the
whole tile, then each thread reads its nine neighbours from shared memory. Tiles are flattened onto grid.x;
size_t offsets; fp32."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TILE 16
#define HALO (TILE + 2)
extern "C" __global__ void local_variance3x3(const float* __restrict__ img, float* __restrict__ out,
                                             int h, int w, int tiles_x) {
    __shared__ float tile[HALO][HALO];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE + tx;
    const int x0 = (blockIdx.x % tiles_x) * TILE, y0 = (blockIdx.x / tiles_x) * TILE;
    for (int k = tid; k < HALO * HALO; k += TILE * TILE) {
        int gy = y0 + k / HALO - 1, gx = x0 + k % HALO - 1;
        gy = min(max(gy, 0), h - 1);
        gx = min(max(gx, 0), w - 1);
        tile[k / HALO][k % HALO] = img[(size_t)gy * w + gx];
    }
    const int y = y0 + ty, x = x0 + tx;
    if (y >= h || x >= w) return;
    float mean = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) mean += tile[ty + dy][tx + dx];
    mean *= (1.0f / 9.0f);
    float var = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) {
            const float d = tile[ty + dy][tx + dx] - mean;
            var += d * d;
        }
    out[(size_t)y * w + x] = var * (1.0f / 9.0f);
}
"""


def _grid(img, out, h, w, tiles_x):
    return (tiles_x * ((h + 15) // 16),)


local_variance_kernel = kcheck.CudaKernel(SOURCE, "local_variance3x3", grid=_grid, block=(16, 16))


def local_variance(img, out):
    h, w = img.shape
    if h and w:
        local_variance_kernel(img.contiguous(), out, h, w, (w + 15) // 16)


def reference(img):
    p = torch.nn.functional.pad(img[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    win = p.unfold(0, 3, 1).unfold(1, 3, 1)  # [H, W, 3, 3]
    mean = win.mean(dim=(2, 3), keepdim=True)
    return ((win - mean) ** 2).mean(dim=(2, 3))


spec = kcheck.Spec(
    name="hx25_cuda_local_variance",
    kernel=local_variance,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="img")],
    outputs=[kcheck.Tensor("H", "W", name="variance")],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=160)},
    dtypes=["fp32"],
)

"""CUDA C 3x3 median filter of a single-channel image [H, W] with replicated borders (the salt-and-pepper denoiser):
16x16 threads per block stage an 18x18 tile (the block's pixels and a one-pixel halo, coordinates clamped into the
image) in shared memory, then each thread selects the median of its nine neighbours with a partial selection sort
(five passes). Tiles are flattened onto grid.x (row tile = blockIdx.x / column tiles); size_t offsets. Images with
NaN are outside the contract (a median of unordered values is undefined), so the nonfinite pattern is left out.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TS 16
extern "C" __global__ void median3x3(const float* __restrict__ x, float* __restrict__ out, int h, int w,
                                     int col_tiles) {
    __shared__ float tile[TS + 2][TS + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = (blockIdx.x / col_tiles) * TS, col0 = (blockIdx.x % col_tiles) * TS;
    for (int i = ty; i < TS + 2; i += TS) {
        for (int j = tx; j < TS + 2; j += TS) {
            const int r = min(max(row0 + i - 1, 0), h - 1);
            const int c = min(max(col0 + j - 1, 0), w - 1);
            tile[i][j] = x[(size_t)r * w + c];
        }
    }
    const int row = row0 + ty, col = col0 + tx;
    if (row < h && col < w) {
        float v[9];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) v[i * 3 + j] = tile[ty + i][tx + j];
        for (int i = 0; i < 5; ++i) {
            int m = i;
            for (int j = i + 1; j < 9; ++j)
                if (v[j] < v[m]) m = j;
            const float t = v[i];
            v[i] = v[m];
            v[m] = t;
        }
        out[(size_t)row * w + col] = v[4];
    }
}
"""

median_kernel = kcheck.CudaKernel(SOURCE, "median3x3",
                                  grid=lambda x, out, h, w, col_tiles: (((h + 15) // 16) * col_tiles,),
                                  block=(16, 16))


def median3x3(img: torch.Tensor) -> torch.Tensor:
    h, w = img.shape
    out = torch.empty((h, w), dtype=img.dtype, device=img.device)
    if h and w:
        median_kernel(img.contiguous(), out, h, w, (w + 15) // 16)
    return out


def reference(img: torch.Tensor) -> torch.Tensor:
    h, w = img.shape
    if h == 0 or w == 0:
        return img.clone()
    p = torch.nn.functional.pad(img[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    windows = torch.stack([p[i:i + h, j:j + w] for i in range(3) for j in range(3)], dim=-1)
    return windows.median(dim=-1).values


spec = kcheck.Spec(
    name="hx24_cuda_median3x3",
    kernel=median3x3,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W")],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=128)},
    dtypes=["fp32"],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)

"""Sobel gradient magnitude of a grayscale image [H, W] in CUDA C (edge maps for document / lane detection):

    gx = [-1 0 1; -2 0 2; -1 0 1] * img,  gy = its transpose,  out = sqrt(gx^2 + gy^2)   (edges replicated)

16x16 thread blocks; each block stages its 18x18 input tile (the tile plus a one-pixel halo, clamped at the image
border) in shared memory, the 256 threads loading the 324 values in two rounds, then every thread computes its pixel
from the shared tile. fp32, size_t offsets, strided rows through a row stride argument.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TS 16
extern "C" __global__ void sobel_mag(const float* __restrict__ img, float* __restrict__ out, int H, int W,
                                     long long s_row) {
    __shared__ float tile[TS + 2][TS + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * TS - 1, y0 = blockIdx.y * TS - 1;
    for (int i = ty * TS + tx; i < (TS + 2) * (TS + 2); i += TS * TS) {
        int ly = i / (TS + 2), lx = i % (TS + 2);
        int gy = min(max(y0 + ly, 0), H - 1), gx = min(max(x0 + lx, 0), W - 1);
        tile[ly][lx] = img[(size_t)gy * (size_t)s_row + (size_t)gx];
    }
    const int x = blockIdx.x * TS + tx, y = blockIdx.y * TS + ty;
    if (x >= W || y >= H) return;
    const int cx = tx + 1, cy = ty + 1;
    float gx = (tile[cy - 1][cx + 1] + 2.0f * tile[cy][cx + 1] + tile[cy + 1][cx + 1])
             - (tile[cy - 1][cx - 1] + 2.0f * tile[cy][cx - 1] + tile[cy + 1][cx - 1]);
    float gy = (tile[cy + 1][cx - 1] + 2.0f * tile[cy + 1][cx] + tile[cy + 1][cx + 1])
             - (tile[cy - 1][cx - 1] + 2.0f * tile[cy - 1][cx] + tile[cy - 1][cx + 1]);
    out[(size_t)y * (size_t)W + x] = sqrtf(gx * gx + gy * gy);
}
"""

sobel_kernel = kcheck.CudaKernel(SOURCE, "sobel_mag",
                                 grid=lambda img, out, H, W, s: ((W + 15) // 16, (H + 15) // 16),
                                 block=(16, 16))


def sobel(img):
    H, W = img.shape
    out = torch.empty((H, W), dtype=torch.float32, device=img.device)
    if H == 0 or W == 0:
        return out
    if img.stride(1) != 1:
        img = img.contiguous()
    sobel_kernel(img, out, H, W, img.stride(0))
    return out


def reference(img):
    H, W = img.shape
    if H == 0 or W == 0:
        return torch.empty((H, W), dtype=img.dtype)
    p = torch.nn.functional.pad(img[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    s = lambda i, j: p[i:i + H, j:j + W]  # noqa: E731
    gx = (s(0, 2) + 2 * s(1, 2) + s(2, 2)) - (s(0, 0) + 2 * s(1, 0) + s(2, 0))
    gy = (s(2, 0) + 2 * s(2, 1) + s(2, 2)) - (s(0, 0) + 2 * s(0, 1) + s(0, 2))
    return torch.sqrt(gx * gx + gy * gy)


spec = kcheck.Spec(
    name="hx15_cuda_sobel",
    kernel=sobel,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="img")],
    dims={"H": kcheck.Dim(nominal=96, real=(480,), large=False), "W": kcheck.Dim(nominal=128, real=(640,))},
    dtypes=["fp32"],
)

"""CUDA C Sobel gradient magnitude of a single-channel image, edges replicated:

    gx = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]] (*) img,  gy = its transpose,  out = sqrt(gx^2 + gy^2)

One thread per output pixel, 16x16 blocks, neighbours clamped to the image, size_t offsets.
"""

import torch
import torch.nn.functional as F

import kcheck

SOURCE = r"""
__device__ __forceinline__ float px(const float* img, int h, int w, int y, int x) {
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    return img[(size_t)y * (size_t)w + x];
}

extern "C" __global__ void sobel_magnitude(const float* __restrict__ img, float* __restrict__ out, int h, int w) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float a = px(img, h, w, y - 1, x - 1), b = px(img, h, w, y - 1, x), c = px(img, h, w, y - 1, x + 1);
    const float d = px(img, h, w, y, x - 1), f = px(img, h, w, y, x + 1);
    const float g = px(img, h, w, y + 1, x - 1), k = px(img, h, w, y + 1, x), l = px(img, h, w, y + 1, x + 1);
    const float gx = (c + 2.0f * f + l) - (a + 2.0f * d + g);
    const float gy = (g + 2.0f * k + l) - (a + 2.0f * b + c);
    out[(size_t)y * (size_t)w + x] = sqrtf(gx * gx + gy * gy);
}
"""

sobel_kernel = kcheck.CudaKernel(SOURCE, "sobel_magnitude",
                                 grid=lambda img, out, h, w: ((w + 15) // 16, (h + 15) // 16), block=(16, 16))


def sobel_magnitude(img: torch.Tensor, out: torch.Tensor) -> None:
    h, w = img.shape
    if h and w:
        sobel_kernel(img.contiguous(), out, h, w)


def reference(img: torch.Tensor) -> torch.Tensor:
    kx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]], dtype=img.dtype, device=img.device)
    padded = F.pad(img[None, None], (1, 1, 1, 1), mode="replicate")
    gx = F.conv2d(padded, kx[None, None])[0, 0]
    gy = F.conv2d(padded, kx.t()[None, None])[0, 0]
    return torch.sqrt(gx * gx + gy * gy)


spec = kcheck.Spec(
    name="cuda_sobel_magnitude_ok",
    kernel=sobel_magnitude,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W")],
    outputs=[kcheck.Tensor("H", "W")],
    dims={"H": kcheck.Dim(nominal=128, max=65535 * 16, real=()), "W": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
)

BUG_CLASS = None

"""CUDA C RGB to grey (Rec. 601 luma): gray = 0.299 R + 0.587 G + 0.114 B, pixels as rows of an [P, 3] tensor.

One thread per pixel in a grid-stride loop (at most 65536 blocks of 256 threads), size_t indices, int pixel count
(a [P, 3] image past 2**31 elements still has fewer than 2**31 pixels).
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void rgb_to_gray(const float* __restrict__ rgb, float* __restrict__ gray, int p) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)p; i += stride) {
        const float* px = rgb + 3 * i;
        gray[i] = 0.299f * px[0] + 0.587f * px[1] + 0.114f * px[2];
    }
}
"""

gray_kernel = kcheck.CudaKernel(SOURCE, "rgb_to_gray", block=(256,),
                                grid=lambda rgb, gray, p: (min((p + 255) // 256, 65536),))


def rgb_to_gray(rgb: torch.Tensor) -> torch.Tensor:
    P = rgb.shape[0]
    gray = torch.empty((P,), dtype=rgb.dtype, device=rgb.device)
    if P:
        gray_kernel(rgb.contiguous(), gray, P)
    return gray


def reference(rgb: torch.Tensor) -> torch.Tensor:
    return 0.299 * rgb[:, 0] + 0.587 * rgb[:, 1] + 0.114 * rgb[:, 2]


spec = kcheck.Spec(
    name="hx22_cuda_rgb_to_gray_ok",
    kernel=rgb_to_gray,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb")],
    dims={"P": kcheck.Dim(nominal=65536, real=(1920 * 1080,))},
    dtypes=["fp32"],
)

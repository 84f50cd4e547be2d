"""CUDA C (correct control): linear sRGB to Oklab (Ottosson 2020), per pixel of an [N, 3] array:

lms = M1 * rgb,  lms' = cbrt(lms),  Lab = M2 * lms'

cbrtf keeps the sign for out-of-gamut (negative) values. One thread per pixel, size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void oklab(const float* __restrict__ rgb, float* __restrict__ lab, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    float l = cbrtf(0.4122214708f * r + 0.5363325363f * g + 0.0514459929f * b);
    float m = cbrtf(0.2119034982f * r + 0.6806995451f * g + 0.1073969566f * b);
    float s = cbrtf(0.0883024619f * r + 0.2817188376f * g + 0.6299787005f * b);
    lab[3 * i] = 0.2104542553f * l + 0.7936177850f * m - 0.0040720468f * s;
    lab[3 * i + 1] = 1.9779984951f * l - 2.4285922050f * m + 0.4505937099f * s;
    lab[3 * i + 2] = 0.0259040371f * l + 0.7827717662f * m - 0.8086757660f * s;
}
"""

oklab_kernel = kcheck.CudaKernel(SOURCE, "oklab", grid=lambda x, o, n: ((n + 255) // 256,), block=(256,))

M1 = [[0.4122214708, 0.5363325363, 0.0514459929], [0.2119034982, 0.6806995451, 0.1073969566],
      [0.0883024619, 0.2817188376, 0.6299787005]]
M2 = [[0.2104542553, 0.7936177850, -0.0040720468], [1.9779984951, -2.4285922050, 0.4505937099],
      [0.0259040371, 0.7827717662, -0.8086757660]]


def rgb_to_oklab(rgb: torch.Tensor, out: torch.Tensor) -> None:
    n = rgb.shape[0]
    if n:
        oklab_kernel(rgb.contiguous(), out, n)


def reference(rgb: torch.Tensor) -> torch.Tensor:
    lms = rgb @ torch.tensor(M1, dtype=rgb.dtype).T
    lms = torch.sign(lms) * lms.abs().pow(1.0 / 3.0)
    return lms @ torch.tensor(M2, dtype=rgb.dtype).T


spec = kcheck.Spec(
    name="hx27_cuda_oklab_ok",
    kernel=rgb_to_oklab,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="rgb")],
    outputs=[kcheck.Tensor("N", 3)],
    dims={"N": kcheck.Dim(nominal=4096, max=2 ** 30, real=())},
    dtypes=["fp32"],
)

"""CUDA C Lorentzian (Cauchy) line profile, as used in spectroscopy peak fitting: for each frequency sample x,
y = 1 / (1 + ((x - center) / hwhm)^2), with the line's center and half width at half maximum as modes.

Grid-stride loop over the flat samples, fp32, size_t offsets, launches chunked to 2**30 elements (int counts).
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void lorentzian(const float* __restrict__ x, float* __restrict__ out, int n, float center,
                                      float inv_hwhm) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride) {
        const float u = (x[i] - center) * inv_hwhm;
        out[i] = 1.0f / (1.0f + u * u);
    }
}
"""

lorentzian_kernel = kcheck.CudaKernel(SOURCE, "lorentzian",
                                      grid=lambda x, out, n, c, w: (min(65535, (n + 255) // 256),), block=(256,))

CHUNK = 2**30


def lorentzian(x: torch.Tensor, out: torch.Tensor, center: float = 0.5, hwhm: float = 0.25) -> None:
    n = x.numel()
    xc = x.contiguous()
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        lorentzian_kernel(xc[s:e], out[s:e], e - s, center, 1.0 / hwhm)


def reference(x: torch.Tensor, center: float = 0.5, hwhm: float = 0.25) -> torch.Tensor:
    u = (x - center) / hwhm
    return 1.0 / (1.0 + u * u)


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx23_cuda_lorentzian_profile_ok",
    kernel=lorentzian,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="frequency")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=8192)},
    dtypes=["fp32"],
    params={"center": [0.5, -2.0], "hwhm": [0.25, 3.0]},
)

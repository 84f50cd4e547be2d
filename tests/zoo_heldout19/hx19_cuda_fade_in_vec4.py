"""CUDA C per-clip gain with a linear fade-in, applied to a batch of audio clips:

    y[m, j] = x[m, j] * gain[m] * min(1, (j + 1) / fade)

x is [M, N] fp32 (made contiguous), gain is [M], fade a sample count. One block per clip. When every row starts
on a 16-byte boundary (row length a multiple of 4 and both buffers 16-byte aligned) the row is read and written
as float4, four samples per access; otherwise one sample at a time."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"
FADE = 64

SOURCE = r"""
#include <stdint.h>
__device__ __forceinline__ float ramp(int j, float inv_fade) { return fminf(1.0f, (float)(j + 1) * inv_fade); }

extern "C" __global__ void fade_in(const float* __restrict__ x, const float* __restrict__ gain,
                                   float* __restrict__ y, int m, int n, float inv_fade) {
    const int row = blockIdx.x;
    const float g = gain[row];
    const float* xr = x + (size_t)row * (size_t)n;
    float* yr = y + (size_t)row * (size_t)n;
    const bool vec = (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4* y4 = reinterpret_cast<float4*>(yr);
        for (int q = threadIdx.x; q < n / 4; q += blockDim.x) {
            const float4 v = x4[q];
            const int j = 4 * q;
            y4[q] = make_float4(v.x * g * ramp(j, inv_fade), v.y * g * ramp(j + 1, inv_fade),
                                v.z * g * ramp(j + 2, inv_fade), v.w * g * ramp(j + 3, inv_fade));
        }
        for (int j = 4 * (n / 4) + threadIdx.x; j < n; j += blockDim.x) yr[j] = xr[j] * g * ramp(j, inv_fade);
    } else {
        for (int j = threadIdx.x; j < n; j += blockDim.x) yr[j] = xr[j] * g * ramp(j, inv_fade);
    }
}
"""

fade_kernel = kcheck.CudaKernel(SOURCE, "fade_in", grid=lambda x, gain, y, m, n, inv_fade: (m,), block=(256,))


def fade_in(x: torch.Tensor, gain: torch.Tensor, y: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        fade_kernel(x.contiguous(), gain.contiguous(), y, m, n, 1.0 / FADE)


def reference(x: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    ramp = torch.clamp((torch.arange(n, dtype=x.dtype, device=x.device) + 1) / FADE, max=1.0)
    return x * gain[:, None] * ramp


spec = kcheck.Spec(
    name="hx19_cuda_fade_in_vec4",
    kernel=fade_in,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", name="gain")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

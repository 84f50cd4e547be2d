"""CUDA C amplitude modulation (AM, double sideband with carrier): y = (1 + k * s) * c for a carrier c, a message s
and a modulation index k. A float4 kernel handles the signal four samples at a time when every pointer is 16-byte
aligned and the length a multiple of 4; otherwise a scalar kernel runs. Grid-stride loops, launches of at most 2**30
samples (int counts)."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
extern "C" __global__ void am_vec4(const float4* __restrict__ c, const float4* __restrict__ s, float4* __restrict__ y,
                                   float k, int n4) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        const float4 a = c[i], b = s[i];
        float4 r;
        r.x = (1.0f + k * b.x) * a.x;
        r.y = (1.0f + k * b.y) * a.y;
        r.z = (1.0f + k * b.z) * a.z;
        r.w = (1.0f + k * b.w) * a.w;
        y[i] = r;
    }
}

extern "C" __global__ void am_scalar(const float* __restrict__ c, const float* __restrict__ s, float* __restrict__ y,
                                     float k, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        y[i] = (1.0f + k * s[i]) * c[i];
    }
}
"""

CHUNK = 1 << 30
am_vec4 = kcheck.CudaKernel(SOURCE, "am_vec4", grid=lambda c, s, y, k, n4: (min((n4 + 255) // 256, 8192),),
                            block=(256,))
am_scalar = kcheck.CudaKernel(SOURCE, "am_scalar", grid=lambda c, s, y, k, n: (min((n + 255) // 256, 8192),),
                              block=(256,))


def amplitude_modulation(carrier: torch.Tensor, message: torch.Tensor, out: torch.Tensor, index: float = 0.5) -> None:
    c, s = carrier.contiguous(), message.contiguous()
    n = c.numel()
    vec4 = n % 4 == 0
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        if vec4:
            am_vec4(c[start:stop], s[start:stop], out[start:stop], index, (stop - start) // 4)
        else:
            am_scalar(c[start:stop], s[start:stop], out[start:stop], index, stop - start)


def reference(carrier: torch.Tensor, message: torch.Tensor, index: float = 0.5) -> torch.Tensor:
    return (1.0 + index * message) * carrier


spec = kcheck.Spec(
    name="hx30_cuda_amplitude_modulation",
    kernel=amplitude_modulation,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="carrier"), kcheck.Tensor("N", name="message")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    params={"index": [0.5, 1.0]},
)

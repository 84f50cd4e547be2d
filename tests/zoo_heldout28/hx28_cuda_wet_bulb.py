"""CUDA C wet-bulb temperature from air temperature (deg C) and relative humidity (%), Stull's (2011) empirical
fit:

    Tw = T atan(0.151977 (RH + 8.313659)^(1/2)) + atan(T + RH) - atan(RH - 1.676331)
         + 0.00391838 RH^(3/2) atan(0.023101 RH) - 4.686035

RH is clamped to [0, 100] first (a NaN humidity counts as 0). Elementwise over [N] vectors: a float4 kernel
(four elements per thread, 16-byte loads and stores) when N is a multiple of 4 and every pointer is 16-byte
aligned, a scalar kernel otherwise. Launches cover at most 2**30 elements each (size_t offsets inside).
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float wet_bulb(float t, float rh) {
    rh = rh > 0.0f ? (rh < 100.0f ? rh : 100.0f) : 0.0f;
    return t * atanf(0.151977f * sqrtf(rh + 8.313659f)) + atanf(t + rh) - atanf(rh - 1.676331f)
           + 0.00391838f * rh * sqrtf(rh) * atanf(0.023101f * rh) - 4.686035f;
}

extern "C" __global__ void wet_bulb_scalar(const float* __restrict__ t, const float* __restrict__ rh,
                                           float* __restrict__ out, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) out[i] = wet_bulb(t[i], rh[i]);
}

extern "C" __global__ void wet_bulb_vec4(const float4* __restrict__ t, const float4* __restrict__ rh,
                                         float4* __restrict__ out, int n4) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n4) {
        const float4 a = t[i], h = rh[i];
        out[i] = make_float4(wet_bulb(a.x, h.x), wet_bulb(a.y, h.y), wet_bulb(a.z, h.z), wet_bulb(a.w, h.w));
    }
}
"""

scalar_kernel = kcheck.CudaKernel(SOURCE, "wet_bulb_scalar", grid=lambda t, rh, out, n: ((n + 255) // 256,),
                                  block=(256,))
vec4_kernel = kcheck.CudaKernel(SOURCE, "wet_bulb_vec4", grid=lambda t, rh, out, n4: ((n4 + 255) // 256,),
                                block=(256,))

CHUNK = 1 << 30


def wet_bulb(t: torch.Tensor, rh: torch.Tensor, out: torch.Tensor) -> None:
    n = t.shape[0]
    for start in range(0, n, CHUNK):
        a, h, o = t[start:start + CHUNK], rh[start:start + CHUNK], out[start:start + CHUNK]
        count = a.shape[0]
        vec = count % 4 == 0
        if vec:
            vec4_kernel(a, h, o, count // 4)
        else:
            scalar_kernel(a, h, o, count)


def reference(t: torch.Tensor, rh: torch.Tensor) -> torch.Tensor:
    rh = torch.where(rh > 0, torch.where(rh < 100, rh, 100.0), 0.0)
    return (t * torch.atan(0.151977 * torch.sqrt(rh + 8.313659)) + torch.atan(t + rh) - torch.atan(rh - 1.676331)
            + 0.00391838 * rh ** 1.5 * torch.atan(0.023101 * rh) - 4.686035)


spec = kcheck.Spec(
    name="cuda_wet_bulb",
    kernel=wet_bulb,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="temperature"), kcheck.Tensor("N", name="humidity")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=8192)},
    dtypes=["fp32"],
)

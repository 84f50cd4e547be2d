"""CUDA C speed of sound in seawater by Medwin's formula (underwater acoustics).

c = 1449.2 + 4.6 T - 0.055 T^2 + 0.00029 T^3 + (1.34 - 0.01 T) (S - 35) + 0.016 z
with T the temperature (deg C), S the salinity (PSU) and z the depth (m), per sample of a CTD cast. A float4
kernel handles four samples per thread when every pointer is 16-byte aligned and the count a multiple of 4; a
scalar kernel handles the rest. Launches cover at most 2**30 samples each (int counts).
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float medwin(float t, float s, float z) {
    return 1449.2f + t * (4.6f + t * (-0.055f + 0.00029f * t)) + (1.34f - 0.01f * t) * (s - 35.0f) + 0.016f * z;
}

extern "C" __global__ void sound_speed_vec4(const float4* __restrict__ t, const float4* __restrict__ s,
                                            const float4* __restrict__ z, float4* __restrict__ c, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 a = t[i], b = s[i], d = z[i];
        c[i] = make_float4(medwin(a.x, b.x, d.x), medwin(a.y, b.y, d.y), medwin(a.z, b.z, d.z),
                           medwin(a.w, b.w, d.w));
    }
}

extern "C" __global__ void sound_speed(const float* __restrict__ t, const float* __restrict__ s,
                                       const float* __restrict__ z, float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = medwin(t[i], s[i], z[i]);
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "sound_speed_vec4", grid=lambda t, s, z, c, n4: ((n4 + 255) // 256,),
                                block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "sound_speed", grid=lambda t, s, z, c, n: ((n + 255) // 256,),
                                  block=(256,))

CHUNK = 2 ** 30


def sound_speed(temperature, salinity, depth, out):
    n = out.numel()
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        t, s, z, c = temperature[lo:hi], salinity[lo:hi], depth[lo:hi], out[lo:hi]
        m = hi - lo
        aligned = all(v.stride(0) == 1 for v in (t, s, z, c))
        if aligned and m % 4 == 0:
            vec4_kernel(t, s, z, c, m // 4)
        else:
            scalar_kernel(t.contiguous(), s.contiguous(), z.contiguous(), c, m)


def reference(temperature, salinity, depth):
    t = temperature
    return (1449.2 + 4.6 * t - 0.055 * t ** 2 + 0.00029 * t ** 3 + (1.34 - 0.01 * t) * (salinity - 35.0)
            + 0.016 * depth)


spec = kcheck.Spec(
    name="hx35_cuda_sound_speed_seawater",
    kernel=sound_speed,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="temperature"), kcheck.Tensor("N", name="salinity"),
            kcheck.Tensor("N", name="depth")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

"""CUDA C complementary filter step for IMU attitude estimation: angle' = alpha (angle + gyro * dt) +
(1 - alpha) * accel_angle, the gyro-integrated angle (smooth, drifting) blended with the accelerometer's tilt angle
(noisy, drift-free), for N independent sensors.

Elementwise and memory-bound, so it reads and writes float4 where it can: when N is a multiple of 4 and every
pointer is 16-byte aligned, a thread handles four sensors through float4 loads and stores; otherwise the scalar
kernel runs. Launches cover at most 2**30 sensors (the element count is a 32-bit int), each a 16-byte-aligned
offset of the last."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"
ALPHA = 0.98
DT = 0.01
CHUNK = 1 << 30

SOURCE = r"""
extern "C" __global__ void comp_filter_vec4(const float4* __restrict__ angle, const float4* __restrict__ gyro,
                                            const float4* __restrict__ acc, float4* __restrict__ out, int n4,
                                            float alpha, float dt) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n4) return;
    const float4 a = angle[i], g = gyro[i], c = acc[i];
    const float beta = 1.0f - alpha;
    float4 r;
    r.x = alpha * (a.x + g.x * dt) + beta * c.x;
    r.y = alpha * (a.y + g.y * dt) + beta * c.y;
    r.z = alpha * (a.z + g.z * dt) + beta * c.z;
    r.w = alpha * (a.w + g.w * dt) + beta * c.w;
    out[i] = r;
}

extern "C" __global__ void comp_filter(const float* __restrict__ angle, const float* __restrict__ gyro,
                                       const float* __restrict__ acc, float* __restrict__ out, int n,
                                       float alpha, float dt) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    out[i] = alpha * (angle[i] + gyro[i] * dt) + (1.0f - alpha) * acc[i];
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "comp_filter_vec4", grid=lambda a, g, c, o, n4, al, dt: ((n4 + 255) // 256,),
                                block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "comp_filter", grid=lambda a, g, c, o, n, al, dt: ((n + 255) // 256,),
                                  block=(256,))


def complementary_filter(angle: torch.Tensor, gyro: torch.Tensor, accel_angle: torch.Tensor) -> torch.Tensor:
    angle, gyro, accel_angle = angle.contiguous(), gyro.contiguous(), accel_angle.contiguous()
    out = torch.empty_like(angle)
    n = angle.numel()
    vec = n % 4 == 0
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        parts = (angle[start:stop], gyro[start:stop], accel_angle[start:stop], out[start:stop])
        if vec:
            vec4_kernel(*parts, (stop - start) // 4, ALPHA, DT)
        else:
            scalar_kernel(*parts, stop - start, ALPHA, DT)
    return out


def reference(angle: torch.Tensor, gyro: torch.Tensor, accel_angle: torch.Tensor) -> torch.Tensor:
    return ALPHA * (angle + gyro * DT) + (1.0 - ALPHA) * accel_angle


spec = kcheck.Spec(
    name="cuda_complementary_filter",
    kernel=complementary_filter,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="angle"), kcheck.Tensor("N", name="gyro"), kcheck.Tensor("N", name="accel_angle")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

"""CUDA C quadratic aerodynamic drag on a batch of 1-D velocities: F = -k v |v| with k = rho Cd A / 2. A float4
kernel handles four velocities per thread when both the input and the output start on a 16-byte boundary, a scalar
kernel the rest (the tail, or everything when a view starts off that boundary); grid-stride loops, launches in
chunks of 2^28 elements so that every count and index fits an int."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"
CHUNK = 1 << 28

SOURCE = r"""
extern "C" __global__ void drag_vec4(const float4* __restrict__ v, float4* __restrict__ f, int n4, float k) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        const float4 a = v[i];
        float4 r;
        r.x = -k * a.x * fabsf(a.x);
        r.y = -k * a.y * fabsf(a.y);
        r.z = -k * a.z * fabsf(a.z);
        r.w = -k * a.w * fabsf(a.w);
        f[i] = r;
    }
}

extern "C" __global__ void drag_scalar(const float* __restrict__ v, float* __restrict__ f, int start, int n,
                                       float k) {
    for (int i = start + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float a = v[i];
        f[i] = -k * a * fabsf(a);
    }
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "drag_vec4", grid=lambda v, f, n4, k: (min((n4 + 255) // 256, 4096),),
                                block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "drag_scalar",
                                  grid=lambda v, f, s, n, k: (min((n - s + 255) // 256, 4096),), block=(256,))


def drag_force(v: torch.Tensor, k: float, out: torch.Tensor) -> None:
    v = v.contiguous()
    for s in range(0, v.numel(), CHUNK):
        vs, fs = v[s:s + CHUNK], out[s:s + CHUNK]
        c = vs.numel()
        tail = 0
        if fs.data_ptr() % 16 == 0:
            tail = c // 4 * 4
            if tail:
                vec4_kernel(vs, fs, c // 4, k)
        if tail < c:
            scalar_kernel(vs, fs, tail, c, k)


def reference(v: torch.Tensor, k: float) -> torch.Tensor:
    return -k * v * v.abs()


spec = kcheck.Spec(
    name="hx31_cuda_drag_force",
    kernel=drag_force,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="velocity"), kcheck.Scalar(0.35, name="k")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

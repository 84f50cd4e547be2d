"""CUDA C squared ReLU (Primer's activation), y = max(x, 0)^2, over a flattened activation. When the buffers allow it
the launcher picks a float4 kernel (four elements per thread, 16-byte loads and stores); otherwise a scalar
grid-stride kernel. size_t indices."""

import torch

import kcheck

SOURCE = r"""
__device__ __forceinline__ float relu_sq(float v) { return v > 0.0f ? v * v : (v != v ? v : 0.0f); }

extern "C" __global__ void relu_sq_vec4(const float* __restrict__ x, float* __restrict__ y, long long n4) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += step) {
        float4 v = x4[i];
        v.x = relu_sq(v.x); v.y = relu_sq(v.y); v.z = relu_sq(v.z); v.w = relu_sq(v.w);
        y4[i] = v;
    }
}

extern "C" __global__ void relu_sq_scalar(const float* __restrict__ x, float* __restrict__ y, long long n) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = relu_sq(x[i]);
}
"""


def _blocks(work: int) -> int:
    return max(1, min((work + 255) // 256, 65535))


relu_sq_vec4 = kcheck.CudaKernel(SOURCE, "relu_sq_vec4", grid=lambda x, y, n4: (_blocks(n4),), block=(256,))
relu_sq_scalar = kcheck.CudaKernel(SOURCE, "relu_sq_scalar", grid=lambda x, y, n: (_blocks(n),), block=(256,))


def relu_squared(x: torch.Tensor, out: torch.Tensor) -> None:
    n = x.numel()
    if n == 0:
        return
    x = x.contiguous()
    if n % 4 == 0:
        relu_sq_vec4(x, out, n // 4)
    else:
        relu_sq_scalar(x, out, n)


spec = kcheck.Spec(
    name="hx9_cuda_relu_squared_vec4",
    kernel=relu_squared,
    reference=lambda x: torch.relu(x) ** 2,
    inputs=[kcheck.Tensor("N")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=65536)},
    dtypes=["fp32"],
)

BUG_CLASS = 'misaligned-access'  # the planted class (from the README's table), for benchmarks/zoo.py

"""CUDA C forward diffusion (DDPM q-sample) on flat tensors: x_t = sqrt(abar) * x_0 + sqrt(1 - abar) * noise,
for the cumulative signal level abar of the sampled timestep (a mode).

Two kernels: a float4 one (four elements per thread through 16-byte loads and stores) and a scalar one. The
launcher takes the float4 path only when every pointer it hands the kernel (x_0, noise and the output) is 16-byte
aligned; the float4 kernel covers the first n - n % 4 elements and the scalar kernel the rest. Launches are
chunked to at most 2**30 elements (int counts, size_t offsets inside).
"""

import math

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void noising_vec4(const float4* __restrict__ x0, const float4* __restrict__ eps,
                                        float4* __restrict__ out, int n4, float a, float b) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n4; i += stride) {
        const float4 u = x0[i];
        const float4 e = eps[i];
        out[i] = make_float4(a * u.x + b * e.x, a * u.y + b * e.y, a * u.z + b * e.z, a * u.w + b * e.w);
    }
}

extern "C" __global__ void noising_scalar(const float* __restrict__ x0, const float* __restrict__ eps,
                                          float* __restrict__ out, int n, float a, float b) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride) {
        out[i] = a * x0[i] + b * eps[i];
    }
}
"""

_GRID = lambda x0, eps, out, n, a, b: (min(65535, (n + 255) // 256),)  # noqa: E731
vec4_kernel = kcheck.CudaKernel(SOURCE, "noising_vec4", grid=_GRID, block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "noising_scalar", grid=_GRID, block=(256,))

CHUNK = 2**30


def diffusion_noising(x0: torch.Tensor, noise: torch.Tensor, out: torch.Tensor, alpha_bar: float = 0.7) -> None:
    n = x0.numel()
    a, b = math.sqrt(alpha_bar), math.sqrt(1.0 - alpha_bar)
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        bufs = (x0[s:e], noise[s:e], out[s:e])
        m = e - s
        m4 = m // 4
        if m4 and all(t.is_contiguous() for t in bufs):
            vec4_kernel(*bufs, m4, a, b)
            done = 4 * m4
        else:
            done = 0
        if done < m:
            scalar_kernel(x0[s + done:e], noise[s + done:e], out[s + done:e], m - done, a, b)


def reference(x0: torch.Tensor, noise: torch.Tensor, alpha_bar: float = 0.7) -> torch.Tensor:
    return math.sqrt(alpha_bar) * x0 + math.sqrt(1.0 - alpha_bar) * noise


BUG_CLASS = "misaligned-access"

spec = kcheck.Spec(
    name="hx23_cuda_diffusion_noising_vec4",
    kernel=diffusion_noising,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x0"), kcheck.Tensor("N", name="noise")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    params={"alpha_bar": [0.7, 0.05]},
)

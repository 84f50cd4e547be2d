"""CUDA C axpby on the rows of a matrix: out = 2 x - 0.5 y. One block of 256 threads per row; rows whose length is a
multiple of 4 (so every row starts on a 16-byte boundary) go through float4 loads and stores, others element by
element. size_t offsets."""

import torch

import kcheck

A, B = 2.0, -0.5

SOURCE = r"""
extern "C" __global__ void axpby_rows(const float* __restrict__ x, const float* __restrict__ y,
                                      float* __restrict__ out, int m, long long n, float a, float b) {
    const size_t base = (size_t)blockIdx.x * (size_t)n;
    const int t = threadIdx.x;
    if (n >= 4) {
        const float4* x4 = reinterpret_cast<const float4*>(x + base);
        const float4* y4 = reinterpret_cast<const float4*>(y + base);
        float4* o4 = reinterpret_cast<float4*>(out + base);
        const long long n4 = n >> 2;
        for (long long j = t; j < n4; j += blockDim.x) {
            const float4 u = x4[j], v = y4[j];
            o4[j] = make_float4(a * u.x + b * v.x, a * u.y + b * v.y, a * u.z + b * v.z, a * u.w + b * v.w);
        }
        for (long long j = 4 * n4 + t; j < n; j += blockDim.x) out[base + j] = a * x[base + j] + b * y[base + j];
    } else {
        for (long long j = t; j < n; j += blockDim.x) out[base + j] = a * x[base + j] + b * y[base + j];
    }
}
"""

axpby_kernel = kcheck.CudaKernel(SOURCE, "axpby_rows", grid=lambda x, y, out, m, n, a, b: (m,), block=(256,))


def axpby_rows(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        axpby_kernel(x.contiguous(), y.contiguous(), out, m, n, A, B)


spec = kcheck.Spec(
    name="hx21_cuda_axpby_vec4",
    kernel=axpby_rows,
    reference=lambda x, y: A * x + B * y,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)
BUG_CLASS = "misaligned-access"

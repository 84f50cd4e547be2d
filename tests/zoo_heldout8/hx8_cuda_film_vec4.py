"""CUDA C feature-wise affine modulation (FiLM-style scale and shift per feature): out[m, n] = x[m, n] * gamma[n] +
beta[n]. One block per row. When the launcher finds the buffers 16-byte aligned, the row is processed as float4
vectors (four features per thread per step) with a scalar loop for the last n % 4 features; otherwise the kernel
runs a plain scalar loop. size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void film_vec4(const float* __restrict__ x, const float* __restrict__ gamma,
                                     const float* __restrict__ beta, float* __restrict__ out, int m, int n,
                                     int vec) {
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    const int nv = n / 4;
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        const float4* g4 = reinterpret_cast<const float4*>(gamma);
        const float4* b4 = reinterpret_cast<const float4*>(beta);
        float4* o4 = reinterpret_cast<float4*>(orow);
        for (int v = threadIdx.x; v < nv; v += blockDim.x) {
            const float4 a = x4[v], g = g4[v], b = b4[v];
            o4[v] = make_float4(a.x * g.x + b.x, a.y * g.y + b.y, a.z * g.z + b.z, a.w * g.w + b.w);
        }
        for (int j = 4 * nv + threadIdx.x; j < n; j += blockDim.x) orow[j] = xr[j] * gamma[j] + beta[j];
    } else {
        for (int j = threadIdx.x; j < n; j += blockDim.x) orow[j] = xr[j] * gamma[j] + beta[j];
    }
}
"""

film_kernel = kcheck.CudaKernel(SOURCE, "film_vec4", grid=lambda x, g, b, out, m, n, vec: (m,), block=(128,))


def film(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        x, gamma, beta = x.contiguous(), gamma.contiguous(), beta.contiguous()
        aligned = all(t.data_ptr() % 16 == 0 for t in (x, gamma, beta, out))
        vec = int(aligned)
        film_kernel(x, gamma, beta, out, m, n, vec)


spec = kcheck.Spec(
    name="hx8_cuda_film_vec4",
    kernel=film,
    reference=lambda x, gamma, beta: x * gamma + beta,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="gamma", pattern="randn"),
            kcheck.Tensor("N", name="beta", pattern="randn")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

BUG_CLASS = "misaligned-access"

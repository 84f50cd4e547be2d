"""CUDA C magnitude of interleaved complex samples: x is (M, N, 2) float (re, im pairs), out[r, k] = |x[r, k]|.

Vectorized path: when the row holds an even number of complex samples, each thread reads two samples as one
float4 and writes two magnitudes as one float2 (row starts are then 16-byte aligned); otherwise a scalar path.
size_t offsets, one block row per matrix row.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void complex_abs(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    const int row = blockIdx.y;
    const float* xr = x + (size_t)row * (size_t)n * 2;
    float* orow = out + (size_t)row * (size_t)n;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= 2) {
        const int k = 2 * tid;
        if (k < n) {
            float4 v = *reinterpret_cast<const float4*>(xr + 2 * (size_t)k);
            float2 r;
            r.x = hypotf(v.x, v.y);
            r.y = hypotf(v.z, v.w);
            *reinterpret_cast<float2*>(orow + k) = r;
        }
    } else {
        for (int k = 2 * tid; k < n && k < 2 * tid + 2; ++k) {
            orow[k] = hypotf(xr[2 * (size_t)k], xr[2 * (size_t)k + 1]);
        }
    }
}
"""

complex_abs_kernel = kcheck.CudaKernel(SOURCE, "complex_abs",
                                       grid=lambda x, out, m, n: ((n + 511) // 512, m), block=(256,))


def complex_abs(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n, _ = x.shape
    if m and n:
        complex_abs_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.hypot(x[..., 0], x[..., 1])


spec = kcheck.Spec(
    name="cuda_complex_abs_vec4",
    kernel=complex_abs,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", 2)],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, max=65535, real=()), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

BUG_CLASS = "misaligned-access"

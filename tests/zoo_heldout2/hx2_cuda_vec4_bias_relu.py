"""CUDA C fused bias + ReLU after a linear layer: y[m, n] = max(x[m, n] + b[n], 0). One block per row; the body
of the row moves as float4 (16-byte loads and stores), the last n % 4 columns one float at a time."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void bias_relu(const float* __restrict__ x, const float* __restrict__ b,
                                     float* __restrict__ out, int m, int n) {
    const size_t row = blockIdx.x;
    const float* xr = x + row * (size_t)n;
    float* orow = out + row * (size_t)n;
    const int n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* o4 = reinterpret_cast<float4*>(orow);
    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        float4 v = x4[i];
        const float4 w = b4[i];
        v.x = fmaxf(v.x + w.x, 0.0f);
        v.y = fmaxf(v.y + w.y, 0.0f);
        v.z = fmaxf(v.z + w.z, 0.0f);
        v.w = fmaxf(v.w + w.w, 0.0f);
        o4[i] = v;
    }
    for (int j = n4 * 4 + threadIdx.x; j < n; j += blockDim.x) orow[j] = fmaxf(xr[j] + b[j], 0.0f);
}
"""

bias_relu_kernel = kcheck.CudaKernel(SOURCE, "bias_relu", grid=lambda x, b, out, m, n: (m,), block=(128,))


def bias_relu(x, b, out):
    m, n = x.shape
    if m and n:
        bias_relu_kernel(x.contiguous(), b.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx2_cuda_vec4_bias_relu",
    kernel=bias_relu,
    reference=lambda x, b: torch.relu(x + b),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    dtypes=["fp32"],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)

BUG_CLASS = "misaligned-access"

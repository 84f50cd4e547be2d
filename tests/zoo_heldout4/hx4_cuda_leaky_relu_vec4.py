"""CUDA C leaky ReLU with a per-row scale, vectorized: each thread handles four consecutive floats of a row through
one float4 load and one float4 store, with a scalar loop for the last n % 4 columns. One block row per matrix row
(blockIdx.y), size_t offsets."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void scaled_leaky_relu(const float* __restrict__ x, const float* __restrict__ scale,
                                             float* __restrict__ out, int m, int n, float slope) {
    const int row = blockIdx.y;
    const float s = scale[row];
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    const int n4 = n / 4;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(xr)[i];
        v.x = (v.x > 0.0f ? v.x : slope * v.x) * s;
        v.y = (v.y > 0.0f ? v.y : slope * v.y) * s;
        v.z = (v.z > 0.0f ? v.z : slope * v.z) * s;
        v.w = (v.w > 0.0f ? v.w : slope * v.w) * s;
        reinterpret_cast<float4*>(orow)[i] = v;
    }
    if (i == 0) {
        for (int j = n4 * 4; j < n; ++j) {
            float v = xr[j];
            orow[j] = (v > 0.0f ? v : slope * v) * s;
        }
    }
}
"""

_kernel = kcheck.CudaKernel(SOURCE, "scaled_leaky_relu",
                            grid=lambda x, scale, out, m, n, slope: (max(1, (n // 4 + 255) // 256), m),
                            block=(256,))

SLOPE = 0.01


def scaled_leaky_relu(x: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        _kernel(x.contiguous(), scale.contiguous(), out, m, n, SLOPE)


spec = kcheck.Spec(
    name="hx4_cuda_leaky_relu_vec4",
    kernel=scaled_leaky_relu,
    reference=lambda x, scale: torch.nn.functional.leaky_relu(x, SLOPE) * scale[:, None],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128, large=False), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

BUG_CLASS = "misaligned-access"

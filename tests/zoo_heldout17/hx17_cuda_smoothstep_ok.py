"""CUDA C smoothstep (Hermite) interpolation, elementwise (shaders / graphics, soft thresholds in image masks).

t = clamp((x - edge0) / (edge1 - edge0), 0, 1), y = t^2 (3 - 2 t), with edge0 < edge1 modes; NaN propagates.
Grid-stride loop over the flattened [M, N] tensor with size_t indices; 256 threads per block.
"""

import torch
import triton

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void smoothstep(const float* __restrict__ x, float* __restrict__ y, int m, int n,
                                      float edge0,
                                      float inv_width) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t total = (size_t)m * (size_t)n;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        float t = (x[i] - edge0) * inv_width;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        y[i] = t * t * (3.0f - 2.0f * t);
    }
}
"""

smoothstep_kernel = kcheck.CudaKernel(
    SOURCE, "smoothstep", grid=lambda x, y, m, n, e0, iw: (min(triton.cdiv(m * n, 256), 65535),), block=(256,))


def smoothstep(x, edge0=-1.0, edge1=1.0):
    x = x.contiguous()
    y = torch.empty_like(x)
    m, n = x.shape
    if m and n:
        smoothstep_kernel(x, y, m, n, edge0, 1.0 / (edge1 - edge0))
    return y


def reference(x, edge0=-1.0, edge1=1.0):
    t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


spec = kcheck.Spec(
    name="hx17_cuda_smoothstep_ok",
    kernel=smoothstep,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    params={"edge0": [-1.0, 0.0], "edge1": [1.0, 4.0]},
    dtypes=["fp32"],
)

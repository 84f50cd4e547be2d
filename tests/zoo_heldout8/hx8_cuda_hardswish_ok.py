"""CUDA C hardswish (MobileNetV3): out = x * min(max(x + 3, 0), 6) / 6, elementwise over a contiguous flattening,
a grid-stride loop with size_t indices (M*N may pass 2**31)."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void hardswish(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    const size_t numel = (size_t)m * (size_t)n;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += stride) {
        const float v = x[i];
        out[i] = v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    }
}
"""

hardswish_kernel = kcheck.CudaKernel(
    SOURCE, "hardswish", grid=lambda x, out, m, n: (min((m * n + 255) // 256, 65535),), block=(256,))


def hardswish(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        hardswish_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx8_cuda_hardswish_ok",
    kernel=hardswish,
    reference=torch.nn.functional.hardswish,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    dtypes=["fp32"],
    properties=[kcheck.props.zero_in_zero_out()],
)

BUG_CLASS = None

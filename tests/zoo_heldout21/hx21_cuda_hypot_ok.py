"""CUDA C elementwise hypotenuse sqrt(x^2 + y^2) through hypotf (no overflow, no underflow), a grid-stride loop
with size_t indices and a grid capped at 65535 * 16 blocks."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void hypot_kernel(const float* __restrict__ x, const float* __restrict__ y,
                                        float* __restrict__ out, long long n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] = hypotf(x[i], y[i]);
    }
}
"""


def _grid(x, y, out, n):
    return (max(1, min((n + 255) // 256, 65535 * 16)),)


hypot_cuda = kcheck.CudaKernel(SOURCE, "hypot_kernel", grid=_grid, block=(256,))


def hypot(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = x.numel()
    if n:
        hypot_cuda(x.contiguous(), y.contiguous(), out, n)


spec = kcheck.Spec(
    name="hx21_cuda_hypot_ok",
    kernel=hypot,
    reference=torch.hypot,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)
BUG_CLASS = None

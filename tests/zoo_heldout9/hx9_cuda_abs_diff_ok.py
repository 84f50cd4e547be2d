"""CUDA C elementwise absolute difference, out = |x - y| (the L1 building block of a perceptual loss), over the
flattened tensors: a grid-stride loop, one element per thread per step, size_t indices."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void abs_diff(const float* __restrict__ x, const float* __restrict__ y,
                                    float* __restrict__ out, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = fabsf(x[i] - y[i]);
}
"""

abs_diff_kernel = kcheck.CudaKernel(SOURCE, "abs_diff", grid=lambda x, y, out, n: (max(1, min((n + 255) // 256,
                                                                                               65535)),),
                                    block=(256,))


def abs_diff(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = x.numel()
    if n:
        abs_diff_kernel(x.contiguous(), y.contiguous(), out, n)


spec = kcheck.Spec(
    name="hx9_cuda_abs_diff_ok",
    kernel=abs_diff,
    reference=lambda x, y: (x - y).abs(),
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    dtypes=["fp32"],
)

BUG_CLASS = None  # the planted class (from the README's table), for benchmarks/zoo.py

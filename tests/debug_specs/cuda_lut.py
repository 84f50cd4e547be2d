"""A CUDA C tone curve looked up in a table whose index comes from the data and is not clamped: on randn data the
lookups land before and past the table at every size (garbage near it, a fault far from it). For the GPU test of
the debugger's data experiment; on a machine without a GPU its cases skip."""

from __future__ import annotations

import torch

import kcheck

from .evidence import _tone_lut_ref  # the same table lookup, clamped, in float64

SOURCE = r"""
extern "C" __global__ void tone_lut(const float* __restrict__ x, const float* __restrict__ lut,
                                    float* __restrict__ out, int n, int l) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = x[i] * (float)(l - 1);  // BUG: x is not clamped to [0, 1] first, so t leaves [0, l - 1]
    int k = (int)floorf(t);
    int k1 = min(k + 1, l - 1);
    float f = t - (float)k;
    out[i] = lut[k] + f * (lut[k1] - lut[k]);
}
"""

_kernel = kcheck.CudaKernel(SOURCE, "tone_lut", grid=lambda x, lut, out, n, size: ((n + 127) // 128,), block=(128,))


def _tone_lut(x: torch.Tensor, lut: torch.Tensor) -> torch.Tensor:
    x, lut = x.contiguous(), lut.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        _kernel(x, lut, out, x.numel(), lut.numel())
    return out


cuda_tone_lut_unclamped = kcheck.Spec(
    name="cuda_tone_lut_unclamped", kernel=_tone_lut, reference=_tone_lut_ref,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("L", name="lut")],
    dims={"N": kcheck.Dim(nominal=256, min=1, real=()), "L": kcheck.Dim(nominal=33, min=2, real=())},
    dtypes=["fp32"], patterns=["randn"], layouts=("contiguous",), seeds=1)

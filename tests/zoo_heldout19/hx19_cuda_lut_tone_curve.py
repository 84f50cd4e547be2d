"""CUDA C tone curve applied through a 1-D lookup table with linear interpolation (a photo editor's curves tool):
the input is clamped to [0, 1], t = x (L - 1), and y = lut[i] + (t - i) (lut[i + 1] - lut[i]) with i = floor(t)
(the last entry for t = L - 1). NaN passes through.

x is a 1-D fp32 buffer, lut has L >= 2 entries (here a gamma-2.2 curve sampled at L points). One thread per
element, size_t indexing."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void lut_tone_curve(const float* __restrict__ x, const float* __restrict__ lut,
                                          float* __restrict__ y, int n, int l) {
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)n) return;
    const float v = x[idx];
    if (isnan(v)) { y[idx] = v; return; }
    const float t = v * (float)(l - 1);
    const int i0 = (int)floorf(t);
    const int i1 = min(i0 + 1, l - 1);
    const float a = lut[i0], b = lut[i1];
    y[idx] = a + (t - (float)i0) * (b - a);
}
"""

lut_kernel = kcheck.CudaKernel(SOURCE, "lut_tone_curve", grid=lambda x, lut, y, n, l: ((n + 255) // 256,),
                               block=(256,))


def lut_tone_curve(x: torch.Tensor, lut: torch.Tensor, y: torch.Tensor) -> None:
    n = x.numel()
    if n:
        lut_kernel(x.contiguous(), lut.contiguous(), y, n, lut.shape[0])


def gamma_lut(ctx: kcheck.CaseContext) -> torch.Tensor:
    L = ctx.dims["L"]
    grid = torch.linspace(0.0, 1.0, L, dtype=torch.float64, device=ctx.device)
    return grid.pow(1.0 / 2.2).to(ctx.dtype)


def reference(x: torch.Tensor, lut: torch.Tensor) -> torch.Tensor:
    L = lut.shape[0]
    t = torch.nan_to_num(x, nan=0.0).clamp(0.0, 1.0) * (L - 1)
    i0 = t.floor().long().clamp(0, L - 1)
    i1 = (i0 + 1).clamp(max=L - 1)
    y = lut[i0] + (t - i0) * (lut[i1] - lut[i0])
    return torch.where(torch.isnan(x), x, y)


spec = kcheck.Spec(
    name="hx19_cuda_lut_tone_curve",
    kernel=lut_tone_curve,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Custom(gamma_lut, name="lut", dims=("L",))],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=100000, large=False), "L": kcheck.Dim(nominal=256, min=2, max=4096, real=())},
    dtypes=["fp32"],
)

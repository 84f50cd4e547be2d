"""CUDA C false-colour rendering: each scalar pixel value x (nominally in [0, 1]) picks one of the 256 RGB entries
of a colormap table, index = round(x * 255) clamped into [0, 255] (NaN reads entry 0, as __float2int_rn gives 0),
and the pixel's three channels are copied from that entry.

x * 255 is one fp32 multiply (__fmul_rn) and the rounding is round-half-even (__float2int_rn), which the reference
reproduces in float32. Grid-stride loop over the pixels, size_t offsets, launches chunked to 2**30 pixels.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void colormap_lut(const float* __restrict__ x, const float* __restrict__ lut,
                                        float* __restrict__ out, int n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride) {
        int idx = __float2int_rn(__fmul_rn(x[i], 255.0f));
        const float* entry = lut + 3 * idx;
        out[3 * i] = entry[0];
        out[3 * i + 1] = entry[1];
        out[3 * i + 2] = entry[2];
    }
}
"""

lut_kernel = kcheck.CudaKernel(SOURCE, "colormap_lut", grid=lambda x, lut, out, n: (min(65535, (n + 255) // 256),),
                               block=(256,))

CHUNK = 2**30


def colormap(x: torch.Tensor, lut: torch.Tensor, out: torch.Tensor) -> None:
    n = x.numel()
    xc, lutc = x.contiguous(), lut.contiguous()
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        lut_kernel(xc[s:e], lutc, out[s:e], e - s)


def reference(x: torch.Tensor, lut: torch.Tensor) -> torch.Tensor:
    v = torch.round(x.float() * 255.0)
    idx = torch.nan_to_num(v, nan=0.0).clamp(0.0, 255.0).long()
    return lut[idx]


BUG_CLASS = "kernel-crash"

spec = kcheck.Spec(
    name="hx23_cuda_colormap_lut",
    kernel=colormap,
    reference=reference,
    inputs=[kcheck.Tensor("P", name="values"), kcheck.Tensor(256, 3, pattern="randn", name="lut")],
    outputs=[kcheck.Tensor("P", 3)],
    dims={"P": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

"""CUDA C nearest-grid-point (NGP) interpolation of a periodic 1-D mesh field onto particles (particle-mesh codes):
a particle at position p in a periodic box of length BOX is wrapped into [0, BOX), its cell is
floor(frac(p / BOX) * G) (clamped to G - 1 against rounding), and it takes that cell's field value. A particle at a
non-finite position gets NaN. fp32, size_t indices, a grid-stride loop."""

import torch

import kcheck

BOX = 0.25

SOURCE = r"""
extern "C" __global__ void ngp_interp(const float* __restrict__ pos, const float* __restrict__ field,
                                      float* __restrict__ out, long long n, int g, float box) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float q = pos[i] / box;
        if (!isfinite(q)) { out[i] = __int_as_float(0x7fc00000); continue; }
        const float f = q;
        int cell = (int)(f * (float)g);
        if (cell >= g) cell = g - 1;
        out[i] = field[cell];
    }
}
"""


def _grid(pos, field, out, n, g, box):
    return (max(1, min((n + 255) // 256, 65535 * 16)),)


ngp_kernel = kcheck.CudaKernel(SOURCE, "ngp_interp", grid=_grid, block=(256,))


def ngp_interp(pos: torch.Tensor, field: torch.Tensor, out: torch.Tensor) -> None:
    n = pos.numel()
    if n:
        ngp_kernel(pos.contiguous(), field.contiguous(), out, n, field.numel(), BOX)


def reference(pos: torch.Tensor, field: torch.Tensor) -> torch.Tensor:
    q = pos.float() / BOX
    f = q - torch.floor(q)
    g = field.numel()
    cell = (f * float(g)).nan_to_num(0.0).clamp(0, g - 1).long()
    return torch.where(torch.isfinite(q), field[cell], torch.full_like(pos, float("nan")))


spec = kcheck.Spec(
    name="hx21_cuda_ngp_field_interp",
    kernel=ngp_interp,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="pos"), kcheck.Tensor("G", name="field")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096), "G": kcheck.Dim(nominal=1024, min=1, large=False)},
    dtypes=["fp32"],
)
BUG_CLASS = "kernel-crash"

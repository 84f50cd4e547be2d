"""CUDA C thermocouple linearization: temperatures from measured EMFs through a uniformly spaced calibration table
(the reference function of a type-K sensor, resampled every 0.5 mV from -5 mV), with linear interpolation inside
the table and linear extrapolation from its end segments outside:

    u = (emf - E0) / dE,   i = clamp(floor(u), 0, K - 2),   T = table[i] + (u - i) * (table[i + 1] - table[i]).

One thread per reading, grid-stride loop, size_t indices; the segment index is clamped before any table access.
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

E0 = -5.0  # mV, first table entry
DE = 0.5  # mV between entries

SOURCE = r"""
extern "C" __global__ void linearize(const float* __restrict__ emf, const float* __restrict__ table,
                                     float* __restrict__ temp, int n, int k, float e0, float inv_de) {
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < (size_t)n; j += step) {
        const float u = (emf[j] - e0) * inv_de;
        int i = (int)floorf(u);
        i = max(i, 0);
        const float lo = table[i], hi = table[i + 1];
        temp[j] = lo + (u - (float)i) * (hi - lo);
    }
}
"""

def _grid(emf, table, temp, n, k, e0, inv_de):
    return (max(1, min(4096, (n + 255) // 256)),)


linearize_kernel = kcheck.CudaKernel(SOURCE, "linearize", grid=_grid, block=(256,))

CHUNK = 2**30


def linearize(emf: torch.Tensor, table: torch.Tensor, temp: torch.Tensor) -> None:
    k = table.shape[0]
    if k < 2:
        raise ValueError("a calibration table needs at least two entries")
    emf, table = emf.contiguous(), table.contiguous()
    for start in range(0, emf.shape[0], CHUNK):
        e, t = emf[start:start + CHUNK], temp[start:start + CHUNK]
        linearize_kernel(e, table, t, e.shape[0], k, E0, 1.0 / DE)


def reference(emf: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    u = (emf - E0) / DE
    i = torch.floor(u).nan_to_num(nan=0.0).clamp(0, table.shape[0] - 2)  # a NaN reading: any segment, T is NaN
    lo, hi = table[i.long()], table[i.long() + 1]
    return lo + (u - i) * (hi - lo)


def calibration_table(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Type-K-like reference function: about 24.4 degC per mV, slightly curved, from -5 mV."""
    e = E0 + DE * torch.arange(ctx.dims["K"], dtype=torch.float64)
    return (24.4 * e - 0.05 * e * e + 0.001 * e ** 3).to(ctx.dtype).to(ctx.device)


spec = kcheck.Spec(
    name="cuda_thermocouple_linearize",
    kernel=linearize,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="emf"), kcheck.Custom(calibration_table, name="table", dims=("K",))],
    outputs=[kcheck.Tensor("N", name="temperature")],
    dims={"N": kcheck.Dim(nominal=10000), "K": kcheck.Dim(nominal=120, min=2, real=(), large=False)},
    dtypes=["fp32"],
)

"""CUDA C tabulated equation of state: pressure by piecewise-linear interpolation in a table sampled uniformly in
log10(density), as hydrodynamics codes do with tabulated (e.g. nuclear or degenerate-matter) EOS data:

    u = (log10 rho - X0) * (K - 1) / SPAN   clamped to [0, K - 1]   (constant extrapolation past both ends)
    j = min(floor(u), K - 2),   f = u - j,   p = table[j] + f * (table[j + 1] - table[j])

The table has K >= 2 entries covering log10 rho in [X0, X0 + SPAN]. A NaN input reads as the lower end. One
thread per element, size_t offsets; the input is read through its stride.
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

X0, SPAN = -3.0, 6.0

SOURCE = r"""
extern "C" __global__ void eos_lookup(const float* __restrict__ logrho, const float* __restrict__ table,
                                      float* __restrict__ p, int n, int sx, int k, float x0, float inv_dx) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    float u = (logrho[i * sx] - x0) * inv_dx;
    u = u < (float)(k - 1) ? u : (float)(k - 1);
    const int j = min((int)u, k - 2);
    const float f = u - (float)j;
    const float lo = table[j], hi = table[j + 1];
    p[i] = lo + f * (hi - lo);
}
"""

eos_kernel = kcheck.CudaKernel(SOURCE, "eos_lookup", grid=lambda x, table, p, n, *rest: ((n + 255) // 256,),
                               block=(256,))


def eos_lookup(logrho: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    n, k = logrho.shape[0], table.shape[0]
    p = torch.empty((n,), dtype=torch.float32, device=logrho.device)
    if n:
        eos_kernel(logrho, table.contiguous(), p, n, logrho.stride(0), k, X0, (k - 1) / SPAN)
    return p


def reference(logrho: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    k = table.shape[0]
    u = (logrho - X0) * ((k - 1) / SPAN)
    u = torch.where(u > 0, u, 0.0)
    u = torch.where(u < k - 1, u, float(k - 1))
    j = torch.clamp(u.floor().long(), max=k - 2)
    f = u - j
    return table[j] + f * (table[j + 1] - table[j])


def pressure_table(ctx: kcheck.CaseContext) -> torch.Tensor:
    """A monotone pressure table: positive random increments, cumulated."""
    return ctx.rand(ctx.dims["K"], dtype=torch.float32).add_(0.1).cumsum(0)


spec = kcheck.Spec(
    name="cuda_eos_table_lookup",
    kernel=eos_lookup,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="log10_density"), kcheck.Custom(pressure_table, name="table", dims=("K",))],
    dims={"N": kcheck.Dim(nominal=10000, max=2**30), "K": kcheck.Dim(nominal=257, min=2, max=65536)},
    dtypes=["fp32"],
)

"""CUDA C tabulated equation of state (hydrodynamics codes): the pressure of each cell from its density by linear
interpolation in a table p_k = p(rho_min + k * drho), k = 0..T-1, sampled on a uniform density grid; densities past
the table's ends take the end values (flat extrapolation), a NaN density gives a NaN pressure.

One thread per cell: the fractional table position u = (rho - rho_min) / drho is clamped into [0, T - 1] before it
becomes the cell index k = min(floor(u), T - 2), so that every index stays inside the table. size_t offsets; the
table here is a polytrope p = K rho^gamma (gamma = 5/3) on [0.1, 10]."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"
RHO_MIN = 0.1
RHO_MAX = 10.0
K_POLY = 1.0
GAMMA = 5.0 / 3.0
CHUNK = 1 << 30

SOURCE = r"""
extern "C" __global__ void eos_pressure(const float* __restrict__ rho, const float* __restrict__ table,
                                        float* __restrict__ p, int n, int nt, float rho_min, float inv_drho) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    float u = (rho[i] - rho_min) * inv_drho;
    if (u != u) {
        p[i] = u;
        return;
    }
    const int k = min((int)u, nt - 2);
    const float f = u - (float)k;
    p[i] = table[k] + f * (table[k + 1] - table[k]);
}
"""

eos_kernel = kcheck.CudaKernel(SOURCE, "eos_pressure", grid=lambda rho, tab, p, n, nt, r0, inv: ((n + 255) // 256,),
                               block=(256,))


def eos_pressure(rho: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    rho, table = rho.contiguous(), table.contiguous()
    out = torch.empty_like(rho)
    n, nt = rho.numel(), table.numel()
    inv_drho = (nt - 1) / (RHO_MAX - RHO_MIN)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        eos_kernel(rho[start:stop], table, out[start:stop], stop - start, nt, RHO_MIN, inv_drho)
    return out


def reference(rho: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    nt = table.numel()
    u = (rho - RHO_MIN) * ((nt - 1) / (RHO_MAX - RHO_MIN))
    u = torch.where(torch.isnan(u), torch.zeros_like(u), u).clamp(0.0, nt - 1)  # NaN cells are set below
    k = u.floor().clamp(max=nt - 2).long()
    f = u - k.to(u.dtype)
    p = table[k] + f * (table[k + 1] - table[k])
    return torch.where(torch.isnan(rho), rho, p)


def polytrope_table(ctx: kcheck.CaseContext) -> torch.Tensor:
    """p = K rho^gamma on T uniform densities from RHO_MIN to RHO_MAX (built, not drawn)."""
    nt = ctx.dims["T"]
    grid = torch.linspace(RHO_MIN, RHO_MAX, nt, dtype=torch.float64, device=ctx.device)
    return (K_POLY * grid ** GAMMA).to(ctx.dtype)


spec = kcheck.Spec(
    name="cuda_eos_table_pressure",
    kernel=eos_pressure,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="rho"), kcheck.Custom(polytrope_table, name="table", dims=("T",))],
    # linear interpolation needs two table entries
    dims={"N": kcheck.Dim(nominal=5000), "T": kcheck.Dim(nominal=256, min=2, large=False)},
    dtypes=["fp32"],
)

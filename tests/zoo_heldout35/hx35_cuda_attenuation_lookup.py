"""CUDA C photon attenuation coefficients by log-log table interpolation (radiation transport, nuclear physics).

Given u = log10(E / MeV) per photon and a table of log10(mu / rho) at K energies spaced uniformly in log10(E)
from U0 by DU, the result is the linear interpolation of the table at u, clamped to the table's range (energies
below/above the table take its first/last value); a NaN energy gives NaN. One thread per photon, int counts,
launches of at most 2**30 photons.
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

U0, DU = -2.0, 0.05   # 10 keV .. 10 MeV over 61 points

SOURCE = r"""
extern "C" __global__ void attenuation_lookup(const float* __restrict__ u, const float* __restrict__ table,
                                              float* __restrict__ out, int n, int k, float u0, float du) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = (u[i] - u0) / du;
    if (isnan(f)) { out[i] = f; return; }
    int j = min((int)f, k - 2);
    float w = f - (float)j;
    out[i] = (1.0f - w) * table[j] + w * table[j + 1];
}
"""

lookup_kernel = kcheck.CudaKernel(SOURCE, "attenuation_lookup",
                                  grid=lambda u, table, out, n, k, u0, du: ((n + 255) // 256,), block=(256,))

CHUNK = 2 ** 30


def attenuation_lookup(log_energy, log_mu_table, out):
    n, k = log_energy.numel(), log_mu_table.numel()
    table = log_mu_table.contiguous()
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        lookup_kernel(log_energy[lo:hi].contiguous(), table, out[lo:hi], hi - lo, k, U0, DU)


def reference(log_energy, log_mu_table):
    k = log_mu_table.numel()
    f = ((log_energy - U0) / DU).clamp(0.0, k - 1)
    j = torch.nan_to_num(f, nan=0.0).floor().clamp(max=k - 2).long()
    w = f - j
    out = (1.0 - w) * log_mu_table[j] + w * log_mu_table[j + 1]
    return torch.where(torch.isnan(log_energy), log_energy, out)


def log_mu_table(ctx):
    # log10(mu / rho) in cm^2/g for a water-like material: falls from ~0.7 at 10 keV to ~-1.7 at 10 MeV
    u = U0 + DU * torch.arange(61, dtype=torch.float64)
    return (0.7 - 1.3 * (u + 2.0) + 0.18 * (u + 2.0) ** 2 - 0.02 * (u + 2.0) ** 3).to(ctx.dtype).to(ctx.device)


spec = kcheck.Spec(
    name="hx35_cuda_attenuation_lookup",
    kernel=attenuation_lookup,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="log_energy"), kcheck.Custom(log_mu_table, name="table", dims=(61,))],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=5000)},
    dtypes=["fp32"],
)

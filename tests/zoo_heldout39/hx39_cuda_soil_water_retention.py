"""CUDA C soil-water retention lookup (agronomy / soil physics): volumetric water content theta from the soil
suction, read off a tabulated retention curve.

Suction is given on the pF scale (pF = log10 of the suction head in cm: 0 at saturation, 2 at field capacity,
4.2 at the wilting point). The curve theta(pF) of the soil (here a van Genuchten fit of a loam) is tabulated at
NT equally spaced pF values from PF0 = 0 to PF1 = 7; each sample interpolates linearly between the two table
entries around it, and takes the end values outside the table. NaN suctions stay NaN.

    u = (pF - PF0) / step,   i = clamp(floor(u), 0, NT - 2),   f = clamp(u - i, 0, 1)
    theta = table[i] + f * (table[i + 1] - table[i])

One thread per sample, launched in chunks of at most 2**30 samples (the counts are 32-bit ints).
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

PF0, PF1 = 0.0, 7.0
CHUNK = 2**30

SOURCE = r"""
extern "C" __global__ void retention_lookup(const float* __restrict__ pf, const float* __restrict__ table,
                                            float* __restrict__ theta, int n, int nt, float pf0, float inv_step) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const float p = pf[k];
    const float u = (p - pf0) * inv_step;
    const int i = max((int)u, 0);
    const float f = fminf(fmaxf(u - (float)i, 0.0f), 1.0f);
    const float t0 = table[i], t1 = table[i + 1];
    theta[k] = (p != p) ? p : t0 + f * (t1 - t0);
}
"""

retention_kernel = kcheck.CudaKernel(SOURCE, "retention_lookup",
                                     grid=lambda pf, table, theta, n, nt, pf0, inv_step: ((n + 255) // 256,),
                                     block=(256,))


def soil_water_retention(pf: torch.Tensor, table: torch.Tensor, theta: torch.Tensor) -> None:
    n, nt = pf.shape[0], table.shape[0]
    inv_step = (nt - 1) / (PF1 - PF0)
    for s in range(0, n, CHUNK):
        c = min(CHUNK, n - s)
        retention_kernel(pf[s:s + c], table, theta[s:s + c], c, nt, PF0, inv_step)


def loam_curve(ctx: kcheck.CaseContext) -> torch.Tensor:
    """theta(pF) of a loam (van Genuchten: theta_r 0.078, theta_s 0.43, alpha 0.036 / cm, n 1.56) at NT points."""
    nt = ctx.dims["NT"]
    pf = torch.linspace(PF0, PF1, nt, dtype=torch.float64)
    n = 1.56
    theta = 0.078 + (0.43 - 0.078) / (1.0 + (0.036 * 10.0**pf) ** n) ** (1.0 - 1.0 / n)
    return theta.to(torch.float32).to(ctx.device)


def reference(pf: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    nt = table.shape[0]
    u = (pf - PF0) * ((nt - 1) / (PF1 - PF0))
    uc = torch.nan_to_num(u.clamp(0, nt - 1), nan=0.0)
    i = uc.floor().clamp(max=nt - 2).long()
    f = uc - i.to(uc.dtype)
    val = table[i] + f * (table[i + 1] - table[i])
    return torch.where(torch.isnan(pf), pf, val)


spec = kcheck.Spec(
    name="hx39_cuda_soil_water_retention",
    kernel=soil_water_retention,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="pF"), kcheck.Custom(loam_curve, name="table", dims=("NT",))],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=5000), "NT": kcheck.Dim(nominal=64, min=2, max=4096, large=False)},
    dtypes=["fp32"],
)

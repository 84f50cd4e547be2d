"""CUDA C property-table interpolation (materials, fluid properties): the kinematic viscosity of water at N
temperatures, linearly interpolated in a table of K values tabulated at t0, t0 + dt, ..., t0 + (K - 1) dt (K >= 2),
held constant beyond the table's ends:

    pos = clamp((T - t0) / dt, 0, K - 1),   j = min(floor(pos), K - 2),   f = pos - j
    nu  = table[j] + f * (table[j + 1] - table[j])              (NaN for a NaN temperature)

One thread per temperature, fp32; the launcher splits N into launches of at most 2**30 temperatures (n is a C int).
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void table_interp(const float* __restrict__ temp, const float* __restrict__ table,
                                        float* __restrict__ out, int n, int k, float t0, float inv_dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float pos = (temp[i] - t0) * inv_dt;
    if (pos != pos) {  /* NaN temperature */
        out[i] = pos;
        return;
    }
    const int j = min((int)pos, k - 2);
    const float f = pos - (float)j;
    out[i] = table[j] + f * (table[j + 1] - table[j]);
}
"""

CHUNK = 1 << 30

interp_kernel = kcheck.CudaKernel(SOURCE, "table_interp",
                                  grid=lambda temp, table, out, n, k, t0, inv_dt: ((n + 255) // 256,), block=(256,))


def viscosity_interp(temp: torch.Tensor, table: torch.Tensor, t0: float, inv_dt: float, out: torch.Tensor) -> None:
    n = temp.shape[0]
    k = table.shape[0]
    assert k >= 2, "the table needs two values at least"
    temp = temp.contiguous()
    table = table.contiguous()
    for start in range(0, n, CHUNK):
        stop = min(n, start + CHUNK)
        interp_kernel(temp[start:stop], table, out[start:stop], stop - start, k, t0, inv_dt)


def reference(temp: torch.Tensor, table: torch.Tensor, t0: float, inv_dt: float) -> torch.Tensor:
    k = table.shape[0]
    pos = (temp - t0) * inv_dt
    nan = torch.isnan(pos)
    pos = torch.where(nan, torch.zeros_like(pos), pos).clamp(0, k - 1)
    j = pos.floor().clamp(max=k - 2).long()
    f = pos - j
    nu = table[j] + f * (table[j + 1] - table[j])
    return torch.where(nan, temp, nu)


spec = kcheck.Spec(
    name="hx38_cuda_viscosity_table_interp",
    kernel=viscosity_interp,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="temperature_c"), kcheck.Tensor("K", name="viscosity_table"),
            kcheck.Scalar(0.0, name="t0"), kcheck.Scalar(2.0, name="inv_dt")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=10000), "K": kcheck.Dim(nominal=201, min=2, large=False)},
    dtypes=["fp32"],
)

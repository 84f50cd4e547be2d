"""CUDA C tide height at arbitrary times from an hourly tide table (oceanography), by linear interpolation.

table is [H]: the predicted water level at hours 0, 1, ..., H - 1 (H >= 2); times is [Q] query times in hours.
Each query is clamped into the table's span [0, H - 1] (levels before the first and after the last hour are held),
then interpolated between the two surrounding hours: k = min(floor(t), H - 2), f = t - k,
level = table[k] + f (table[k + 1] - table[k]). A NaN time gives a NaN level. One thread per query.
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void tide_interp(const float* __restrict__ table, const float* __restrict__ times,
                                       float* __restrict__ out, int h, int q) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= q) return;
    const float tq = times[i];
    if (isnan(tq)) {
        out[i] = tq;
        return;
    }
    const float p = fminf(fmaxf(tq, 0.0f), (float)(h - 1));
    const int k = min((int)floorf(tq), h - 2);
    const float f = p - (float)k;
    const float a = table[k];
    out[i] = a + f * (table[k + 1] - a);
}
"""

tide_kernel = kcheck.CudaKernel(SOURCE, "tide_interp", grid=lambda tb, t, o, h, q: ((q + 255) // 256,), block=(256,))


def tide_table_interp(table: torch.Tensor, times: torch.Tensor, out: torch.Tensor) -> None:
    q = times.numel()
    if q:
        tide_kernel(table.contiguous(), times.contiguous(), out, table.numel(), q)


def reference(table: torch.Tensor, times: torch.Tensor) -> torch.Tensor:
    h = table.shape[0]
    p = times.clamp(0, h - 1)
    k = torch.floor(p).clamp(max=h - 2)
    k = torch.where(torch.isnan(k), torch.zeros_like(k), k)
    f = p - k
    kk = k.long()
    a = table[kk]
    return a + f * (table[kk + 1] - a)


spec = kcheck.Spec(
    name="hx40_cuda_tide_table_interp",
    kernel=tide_table_interp,
    reference=reference,
    inputs=[kcheck.Tensor("H", name="table"), kcheck.Tensor("Q", name="times")],
    outputs=[kcheck.Tensor("Q")],
    dims={"H": kcheck.Dim(nominal=720, min=2), "Q": kcheck.Dim(nominal=5000)},
    dtypes=["fp32"],
)

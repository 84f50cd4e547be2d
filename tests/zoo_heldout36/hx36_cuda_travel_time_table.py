"""Seismology (CUDA C): first-arrival travel times by linear interpolation in a 1-D travel-time table sampled
every DD degrees of epicentral distance. The distance in table units is clamped to [0, NT - 1] (flat beyond the
table's ends; CUDA's fmaxf/fminf take a NaN distance to 0), then t = tt[i] * (1 - w) + tt[i + 1] * w with
i = min(floor(f), NT - 2). One thread per query, launches of at most 2**30 queries."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

DD = 0.5  # degrees per table entry
CHUNK = 2**30

SOURCE = r"""
extern "C" __global__ void travel_time(const float* __restrict__ dist, const float* __restrict__ tt,
                                       float* __restrict__ out, int nq, int nt, float inv_dd) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    const float f = fminf(dist[q] * inv_dd, (float)(nt - 1));
    const int i = min((int)f, nt - 2);
    const float w = f - (float)i;
    out[q] = tt[i] * (1.0f - w) + tt[i + 1] * w;
}
"""

tt_kernel = kcheck.CudaKernel(SOURCE, "travel_time", grid=lambda d, tt, out, nq, nt, inv: ((nq + 255) // 256,),
                              block=(256,))


def travel_time(dist: torch.Tensor, table: torch.Tensor, out: torch.Tensor) -> None:
    nq, nt = dist.numel(), table.numel()
    if nq == 0:
        return
    if nt < 2:
        out.copy_(table.expand(nq)) if nt == 1 else out.fill_(float("nan"))
        return
    dist, table = dist.contiguous(), table.contiguous()
    for s in range(0, nq, CHUNK):
        e = min(nq, s + CHUNK)
        tt_kernel(dist[s:e], table, out[s:e], e - s, nt, 1.0 / DD)


def reference(dist: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    nt = table.shape[0]
    if nt == 0:
        return torch.full_like(dist, float("nan"))
    if nt == 1:
        return table.expand(dist.shape[0]).clone()
    f = torch.nan_to_num(dist / DD, nan=0.0).clamp(0, nt - 1)
    i = f.floor().long().clamp(max=nt - 2)
    w = f - i
    return table[i] * (1 - w) + table[i + 1] * w


spec = kcheck.Spec(
    name="hx36_cuda_travel_time_table",
    kernel=travel_time,
    reference=reference,
    inputs=[kcheck.Tensor("Q", name="distance"), kcheck.Tensor("T", name="table", grad=False)],
    outputs=[kcheck.Tensor("Q")],
    dims={"Q": kcheck.Dim(nominal=5000), "T": kcheck.Dim(nominal=360, max=4096)},
    dtypes=["fp32"],
)

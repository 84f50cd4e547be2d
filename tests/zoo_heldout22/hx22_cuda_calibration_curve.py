"""CUDA C piecewise-linear sensor calibration: raw readings mapped through a table of K calibrated values at
uniformly spaced knots over [LO, HI] (knot k at LO + k (HI - LO) / (K - 1)).

Readings outside the range are clamped to it (the end values hold), NaN readings stay NaN. One thread per
reading in a grid-stride loop; the launcher works in chunks of at most 2**30 readings (int counts, size_t indices).
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

LO, HI = -4.0, 4.0
CHUNK = 1 << 30

SOURCE = r"""
extern "C" __global__ void calibrate(const float* __restrict__ x, const float* __restrict__ table,
                                     float* __restrict__ y, int n, int k, float lo, float hi) {
    const float scale = (k - 1) / (hi - lo);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x) {
        const float xv = x[i];
        if (isnan(xv)) {
            y[i] = xv;
            continue;
        }
        const float xc = xv;
        const float u = (xc - lo) * scale;
        const int j = min((int)u, k - 2);
        const float t = u - (float)j;
        y[i] = table[j] + t * (table[j + 1] - table[j]);
    }
}
"""

calibrate_kernel = kcheck.CudaKernel(SOURCE, "calibrate", block=(256,),
                                     grid=lambda x, tab, y, n, k, lo, hi: (min((n + 255) // 256, 65536),))


def calibrate(raw: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    raw, table = raw.contiguous(), table.contiguous()
    out = torch.empty_like(raw)
    for s in range(0, raw.numel(), CHUNK):
        chunk = raw[s:s + CHUNK]
        calibrate_kernel(chunk, table, out[s:s + CHUNK], chunk.numel(), table.numel(), LO, HI)
    return out


def reference(raw: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    K = table.shape[0]
    u = (raw.clamp(LO, HI) - LO) * ((K - 1) / (HI - LO))
    j = torch.nan_to_num(u).floor().clamp(max=K - 2).long()
    t = u - j
    y = table[j] + t * (table[j + 1] - table[j])
    return torch.where(torch.isnan(raw), raw, y)


spec = kcheck.Spec(
    name="hx22_cuda_calibration_curve",
    kernel=calibrate,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="raw"), kcheck.Tensor("K", name="table")],
    dims={"N": kcheck.Dim(nominal=100000, real=(1 << 20,)), "K": kcheck.Dim(nominal=33, min=2, max=65, real=(17,))},
    dtypes=["fp32"],
)

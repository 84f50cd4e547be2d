"""CUDA C stage-discharge rating curve (hydrology): a gauging station's rating table holds the discharge q[k] at
the stages h0 + k dh (k = 0..K-1); each observed stage h is converted to a discharge by linear interpolation in the
table, extrapolated linearly from the first or last segment outside it:

    u = (h - h0) / dh,   j = clamp(floor(u), 0, K - 2),   Q = q[j] + (u - j) (q[j + 1] - q[j])

One thread per observation; the segment index is clamped in float before it becomes an int (NaN stages clamp to
segment 0 and stay NaN through u - j), so every table read stays inside the table. fp32, size_t indices; launches
of at most 2**30 observations.
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

CHUNK = 2**30

SOURCE = r"""
extern "C" __global__ void rating_curve(const float* __restrict__ stage, const float* __restrict__ table,
                                        float* __restrict__ out, int n, int k, float h0, float inv_dh) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    const float u = (stage[i] - h0) * inv_dh;
    const float f = fminf(floorf(u), (float)(k - 2));
    const int j = (int)f;
    const float a = table[j];
    const float b = table[j + 1];
    out[i] = a + (u - f) * (b - a);
}
"""

rating_kernel = kcheck.CudaKernel(SOURCE, "rating_curve", grid=lambda s, q, out, n, k, h0, inv: ((n + 255) // 256,),
                                  block=(256,))


def rating_curve_lookup(stage: torch.Tensor, table: torch.Tensor, out: torch.Tensor, dh: float = 0.25,
                        h0: float = 0.0) -> None:
    n, k = stage.shape[0], table.shape[0]
    stage, table = stage.contiguous(), table.contiguous()
    for lo in range(0, n, CHUNK):  # launches of at most 2**30 observations: n stays a 32-bit int
        hi = min(n, lo + CHUNK)
        rating_kernel(stage[lo:hi], table, out[lo:hi], hi - lo, k, h0, 1.0 / dh)


def reference(stage: torch.Tensor, table: torch.Tensor, dh: float, h0: float) -> torch.Tensor:
    k = table.shape[0]
    u = (stage - h0) / dh
    f = torch.floor(u).clamp(0, k - 2)
    f = torch.where(torch.isnan(f), torch.zeros_like(f), f)
    j = f.long()
    a, b = table[j], table[j + 1]
    return a + (u - f) * (b - a)


spec = kcheck.Spec(
    name="hx37_cuda_rating_curve_lookup",
    kernel=rating_curve_lookup,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="stage"), kcheck.Tensor("K", name="table")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=10000), "K": kcheck.Dim(nominal=64, min=2, max=4096, large=False)},
    params={"dh": [0.25, 0.5], "h0": [0.0, -2.0]},
    dtypes=["fp32"],
)

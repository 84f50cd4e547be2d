"""Bucketize feature values into sorted boundaries in CUDA C (the discretization step of a recommendation model's
dense features before their embedding lookup), as torch.bucketize(x, boundaries, right=False):

    out[i] = the number of boundaries b with b < x[i]           (0 .. B; B when x is above every boundary)

One thread per value, a binary search over the boundaries; the result is checked against the search's range with a
device assert (compiled in). The boundaries are a Custom input: sorted distinct values spanning the data's range. The
nonfinite pattern is left out (NaN has no bucket by contract).
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
#include <assert.h>
extern "C" __global__ void bucketize(const float* __restrict__ x, const float* __restrict__ bounds,
                                     long long* __restrict__ out, long long n, int nb) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = x[i];
    int lo = 0, hi = nb;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (bounds[mid] < v) lo = mid + 1; else hi = mid;
    }
    assert(lo >= 0 && lo < nb);
    out[i] = lo;
}
"""

bucketize_kernel = kcheck.CudaKernel(SOURCE, "bucketize", grid=lambda x, b, o, n, nb: ((n + 255) // 256,),
                                     block=(256,))


def bucketize(x, boundaries):
    n = x.numel()
    out = torch.zeros((n,), dtype=torch.int64, device=x.device)
    if n == 0:
        return out
    bucketize_kernel(x.contiguous(), boundaries.contiguous(), out, n, boundaries.numel())
    return out


def reference(x, boundaries):
    return torch.bucketize(x, boundaries, right=False)


def boundaries(ctx):
    """B sorted, distinct boundaries spread over [-3, 3] (a quantile table), in fp32."""
    B = ctx.dims["B"]
    if B == 0:
        return torch.empty((0,), dtype=torch.float32, device=ctx.device)
    steps = ctx.rand(B, dtype=torch.float32) + 0.05
    b = torch.cumsum(steps, 0)
    b = (b - b[0]) / max(float(b[-1] - b[0]), 1e-6) * 6.0 - 3.0 if B > 1 else b * 0.0
    return b.to(ctx.device)


spec = kcheck.Spec(
    name="hx15_cuda_bucketize",
    kernel=bucketize,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x", dtype=torch.float32),
            kcheck.Custom(boundaries, name="boundaries", dims=("B",))],
    dims={"N": kcheck.Dim(nominal=4096), "B": kcheck.Dim(nominal=63, max=4096, real=(255,), large=False)},
    dtypes=["fp32"],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)

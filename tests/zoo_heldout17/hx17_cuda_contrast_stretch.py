"""CUDA C per-row contrast stretch (min-max normalisation of image rows / scanlines, sensor calibration).

out[m, n] = (x[m, n] - min_m) / (max_m - min_m + eps). One block of 256 threads per row: a strided min/max per
thread, a tree reduction of both in shared memory, then every thread rescales its elements (fp32, size_t row
offsets).
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

EPS = 1e-6

SOURCE = r"""
extern "C" __global__ void contrast_stretch(const float* __restrict__ x, float* __restrict__ out, int m, int n,
                                            float eps) {
    __shared__ float smin[256];
    __shared__ float smax[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float lo = __int_as_float(0x7f800000), hi = -__int_as_float(0x7f800000);
    for (int j = t; j < n; j += blockDim.x) {
        const float v = xr[j];
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }
    smin[t] = lo;
    smax[t] = hi;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            smin[t] = fminf(smin[t], smin[t + s]);
            smax[t] = fmaxf(smax[t], smax[t + s]);
        }
        __syncthreads();
    }
    const float lo_row = smin[0];
    const float inv = 1.0f / (smax[0] - lo_row + eps);
    float* orow = out + (size_t)row * (size_t)n;
    for (int j = t; j < n; j += blockDim.x) orow[j] = (xr[j] - lo_row) * inv;
}
"""

stretch_kernel = kcheck.CudaKernel(SOURCE, "contrast_stretch", grid=lambda x, out, m, n, eps: (m,), block=(256,))


def contrast_stretch(x):
    m, n = x.shape
    x = x.contiguous()
    out = torch.empty_like(x)
    if m and n:
        stretch_kernel(x, out, m, n, EPS)
    return out


def reference(x):
    lo = x.amin(dim=-1, keepdim=True)
    hi = x.amax(dim=-1, keepdim=True)
    return (x - lo) / (hi - lo + EPS)


spec = kcheck.Spec(
    name="hx17_cuda_contrast_stretch",
    kernel=contrast_stretch,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    patterns=["randn", "zeros", "ones", "eye", "arange", "tiny", "constant", "large_mean"],
    dtypes=["fp32"],
)

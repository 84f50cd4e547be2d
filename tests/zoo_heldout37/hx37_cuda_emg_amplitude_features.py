"""CUDA C amplitude features of surface-EMG windows (biomechanics / neuroscience): for each window (row) of x
[windows, samples],

    rms[w] = sqrt(mean_j x[w, j]^2)          mav[w] = mean_j |x[w, j]|

One block of 256 threads per window. When every row starts on a 16-byte boundary (the row length a multiple of 4
floats in a contiguous tensor) the samples are read as float4, four per load; the rest (or every sample otherwise)
one float at a time. Both sums go through one shared-memory tree reduction. fp32, except the sum of squares, in
fp64 (the square of an amplitude near fp32's smallest normal underflows in fp32); size_t row offsets.
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
extern "C" __global__ void emg_features(const float* __restrict__ x, float* __restrict__ rms,
                                        float* __restrict__ mav, int m, int n) {
    __shared__ double s_sq[256];
    __shared__ float s_abs[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    double sq = 0.0;
    float ab = 0.0f;
    int head = 0;
    if (n >= 4) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        const int n4 = n >> 2;
        for (int j = t; j < n4; j += blockDim.x) {
            const float4 v = x4[j];
            sq += (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z + (double)v.w * v.w;
            ab += fabsf(v.x) + fabsf(v.y) + fabsf(v.z) + fabsf(v.w);
        }
        head = n4 << 2;
    }
    for (int j = head + t; j < n; j += blockDim.x) {
        const float v = xr[j];
        sq += (double)v * v;
        ab += fabsf(v);
    }
    s_sq[t] = sq;
    s_abs[t] = ab;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_sq[t] += s_sq[t + s];
            s_abs[t] += s_abs[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        rms[row] = (float)sqrt(s_sq[0] / (double)n);
        mav[row] = s_abs[0] / (float)n;
    }
}
"""

features_kernel = kcheck.CudaKernel(SOURCE, "emg_features", grid=lambda x, rms, mav, m, n: (m,), block=(256,))


def emg_amplitude_features(x: torch.Tensor, rms: torch.Tensor, mav: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        features_kernel(x.contiguous(), rms, mav, m, n)


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.pow(2).mean(-1).sqrt(), x.abs().mean(-1)


spec = kcheck.Spec(
    name="hx37_cuda_emg_amplitude_features",
    kernel=emg_amplitude_features,
    reference=reference,
    inputs=[kcheck.Tensor("W", "N", name="emg")],
    outputs=[kcheck.Tensor("W"), kcheck.Tensor("W")],
    dims={"W": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=2000)},
    dtypes=["fp32"],
    reduce=["N"],
)

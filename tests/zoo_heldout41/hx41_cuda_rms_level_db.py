"""CUDA C RMS level in decibels per audio frame (acoustics): L[m] = 10 log10(mean_j x[m, j]^2 + 1e-20), the floor
keeping silent frames at -200 dB. One block of 256 threads per frame: a strided fp32 partial sum of squares per
thread (size_t offsets), then a tree reduction in shared memory."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
extern "C" __global__ void rms_level_db(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += xr[j] * xr[j];
    buf[t] = acc;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) {
        float mean_sq = n > 0 ? buf[0] / (float)n : 0.0f;
        out[row] = 10.0f * log10f(mean_sq + 1e-20f);
    }
}
"""

rms_level_kernel = kcheck.CudaKernel(SOURCE, "rms_level_db", grid=lambda x, out, m, n: (m,), block=(256,))


def rms_level_db(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        rms_level_kernel(x.contiguous(), out, m, n)


def reference(x):
    n = x.shape[-1]
    mean_sq = x.pow(2).sum(-1) / max(n, 1)
    return 10.0 * torch.log10(mean_sq + 1e-20)


spec = kcheck.Spec(
    name="cuda_rms_level_db",
    kernel=rms_level_db,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=2048)},
    dtypes=["fp32"],
    reduce=["N"],
)

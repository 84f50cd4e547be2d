"""CUDA C per-channel polynomial calibration of sensor readings (raw counts to physical units), as detector and
ADC pipelines apply it:

    y[i, j] = sum_{q < K} c[i, q] * x[i, j]^q      (channel i, sample j; evaluated by Horner's rule)

One block of 256 threads per channel: the channel's K coefficients are staged in shared memory by the first K
threads, the block synchronizes, then each thread evaluates its samples (a stride-256 loop) with fmaf. K <= 8.
fp32, size_t offsets, strides honoured.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
#define MAX_K 8
extern "C" __global__ void calibrate(const float* __restrict__ x, const float* __restrict__ c,
                                     float* __restrict__ y, int m, int n, int k, int sxm, int sxn, int scm,
                                     int scq, int sym) {
    __shared__ float coef[MAX_K];
    const int t = threadIdx.x;
    const size_t row = blockIdx.x;
    if (t < k) coef[t] = c[row * scm + (size_t)t * scq];
    __syncthreads();
    const float* xr = x + row * sxm;
    float* yr = y + row * sym;
    for (int j = t; j < n; j += blockDim.x) {
        const float v = xr[(size_t)j * sxn];
        float acc = coef[k - 1];
        for (int q = k - 2; q >= 0; --q) acc = fmaf(acc, v, coef[q]);
        yr[j] = acc;
    }
}
"""

calibrate_kernel = kcheck.CudaKernel(SOURCE, "calibrate", grid=lambda x, c, y, m, *rest: (m,), block=(256,))


def calibrate(x: torch.Tensor, coeffs: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    k = coeffs.shape[1]
    y = torch.empty((m, n), dtype=torch.float32, device=x.device)
    if m and n:
        calibrate_kernel(x, coeffs, y, m, n, k, x.stride(0), x.stride(1), coeffs.stride(0), coeffs.stride(1),
                         y.stride(0))
    return y


def reference(x: torch.Tensor, coeffs: torch.Tensor) -> torch.Tensor:
    y = coeffs[:, -1:].expand_as(x).clone()
    for q in range(coeffs.shape[1] - 2, -1, -1):
        y = y * x + coeffs[:, q:q + 1]
    return y


spec = kcheck.Spec(
    name="cuda_calibration_poly",
    kernel=calibrate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="raw"), kcheck.Tensor("M", "K", pattern="randn", name="coefficients")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=4000), "K": kcheck.Dim(nominal=5, min=1, max=8)},
    dtypes=["fp32"],
    reduce=["K"],
)

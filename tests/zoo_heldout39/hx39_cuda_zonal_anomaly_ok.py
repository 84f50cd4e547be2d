"""CUDA C zonal means and zonal anomalies of a gridded field (meteorology: the eddy part of a field along each
latitude circle, x* = x - [x]).

Each row is one latitude circle of N longitudes. One block of 256 threads per row sums the row relative to its
first value (strided partial sums in fp32, then a tree reduction in shared memory with a __syncthreads() after
every step), then writes the zonal mean and every point's anomaly. The shift keeps a field with a large offset
(pressure in Pa, geopotential) from losing its small anomalies; a row that starts with a non-finite value is
summed unshifted. size_t offsets; the input's row pitch is honoured.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void zonal_anomaly(const float* __restrict__ x, float* __restrict__ anom,
                                         float* __restrict__ zmean, int n, int ld) {
    __shared__ float buf[256];
    const int t = threadIdx.x;
    const float* row = x + (size_t)blockIdx.x * (size_t)ld;
    const float x0 = row[0];
    const float shift = isfinite(x0) ? x0 : 0.0f;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += row[j] - shift;
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    const float mean_d = buf[0] / (float)n;
    if (t == 0) zmean[blockIdx.x] = shift + mean_d;
    float* o = anom + (size_t)blockIdx.x * (size_t)n;
    for (int j = t; j < n; j += blockDim.x) o[j] = (row[j] - shift) - mean_d;
}
"""

zonal_kernel = kcheck.CudaKernel(SOURCE, "zonal_anomaly", grid=lambda x, anom, zmean, n, ld: (zmean.shape[0],),
                                 block=(256,))


def zonal_anomaly(x: torch.Tensor, anom: torch.Tensor, zmean: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0:
        return
    if n == 0:
        zmean.fill_(float("nan"))  # the mean of nothing, as torch.mean gives
        return
    if x.stride(1) != 1:
        x = x.contiguous()
    zonal_kernel(x, anom, zmean, n, x.stride(0))


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    mean = x.mean(dim=-1)
    return x - mean[:, None], mean


spec = kcheck.Spec(
    name="hx39_cuda_zonal_anomaly_ok",
    kernel=zonal_anomaly,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=73), "N": kcheck.Dim(nominal=144)},
    dtypes=["fp32"],
    reduce=["N"],
)

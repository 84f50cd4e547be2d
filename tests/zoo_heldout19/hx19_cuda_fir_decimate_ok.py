"""CUDA C FIR filter with decimation by 2 (one stage of a polyphase resampler), valid part only:

    y[m, k] = sum_{j < K} h[j] * x[m, 2k + j],   k < (N - K) / 2 + 1

x is [M, N] fp32 (made contiguous), h is [K] with K <= N. One thread per output sample over the flattened
[M, N_out] output, size_t indexing, fp32 accumulation."""

import torch
import torch.nn.functional as F

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void fir_decimate2(const float* __restrict__ x, const float* __restrict__ h,
                                         float* __restrict__ y, int m, int n, int k, int n_out) {
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)m * (size_t)n_out) return;
    const size_t row = idx / (size_t)n_out;
    const size_t col = idx % (size_t)n_out;
    const float* xr = x + row * (size_t)n + 2 * col;
    float acc = 0.0f;
    for (int j = 0; j < k; ++j) acc = fmaf(h[j], xr[j], acc);
    y[idx] = acc;
}
"""


def _grid(x, h, y, m, n, k, n_out):
    return ((m * n_out + 255) // 256,)


fir_kernel = kcheck.CudaKernel(SOURCE, "fir_decimate2", grid=_grid, block=(256,))


def fir_decimate2(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    k = h.shape[0]
    n_out = (n - k) // 2 + 1
    y = torch.empty((m, n_out), dtype=x.dtype, device=x.device)
    if m and n_out:
        fir_kernel(x.contiguous(), h.contiguous(), y, m, n, k, n_out)
    return y


def reference(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    return F.conv1d(x[:, None, :], h[None, None, :], stride=2)[:, 0, :]


spec = kcheck.Spec(
    name="hx19_cuda_fir_decimate_ok",
    kernel=fir_decimate2,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("K", name="taps")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=2000, min=32),
          "K": kcheck.Dim(nominal=15, min=1, max=32, real=())},
    dtypes=["fp32"],
    reduce=["K"],
)

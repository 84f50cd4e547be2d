"""CUDA C Gaussian density of every sample of a batch of rows, y = exp(-(x - mu)^2 / (2 sigma^2)) / (sigma sqrt(2 pi))
(likelihood maps, soft histogram binning), with mu and sigma Scalars.

A 2-D grid: blockIdx.y the row, blockIdx.x blocks of 256 threads along it. When every row starts on a 16-byte
boundary (row length a multiple of 4 and both buffers aligned) the rows are read and written as float4, four samples
per thread; otherwise one sample per thread. fp32, size_t offsets.
"""

import math

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float gauss(float x, float mu, float inv_sigma, float norm) {
    const float z = (x - mu) * inv_sigma;
    return norm * expf(-0.5f * z * z);
}

extern "C" __global__ void gaussian_pdf_rows(const float* __restrict__ x, float* __restrict__ y, int n,
                                             float mu, float inv_sigma, float norm) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t row = (size_t)blockIdx.y * (size_t)n;
    if (i < n) y[row + i] = gauss(x[row + i], mu, inv_sigma, norm);
}

extern "C" __global__ void gaussian_pdf_rows_vec4(const float* __restrict__ x, float* __restrict__ y, int n,
                                                  float mu, float inv_sigma, float norm) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  /* float4 index within the row */
    const size_t row = (size_t)blockIdx.y * (size_t)n;
    if (4 * i + 3 < n) {
        const float4 v = *reinterpret_cast<const float4*>(x + row + 4 * (size_t)i);
        float4 r;
        r.x = gauss(v.x, mu, inv_sigma, norm);
        r.y = gauss(v.y, mu, inv_sigma, norm);
        r.z = gauss(v.z, mu, inv_sigma, norm);
        r.w = gauss(v.w, mu, inv_sigma, norm);
        *reinterpret_cast<float4*>(y + row + 4 * (size_t)i) = r;
    } else {
        for (int k = 4 * i; k < n; ++k) y[row + k] = gauss(x[row + k], mu, inv_sigma, norm);
    }
}
"""

pdf_kernel = kcheck.CudaKernel(SOURCE, "gaussian_pdf_rows",
                               grid=lambda x, y, n, mu, s, c: ((n + 255) // 256, x.shape[0]), block=(256,))
pdf_kernel_vec4 = kcheck.CudaKernel(SOURCE, "gaussian_pdf_rows_vec4",
                                    grid=lambda x, y, n, mu, s, c: ((n + 1023) // 1024, x.shape[0]), block=(256,))


def gaussian_pdf(x: torch.Tensor, mu: float, sigma: float, out: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0 or n == 0:
        return
    x = x.contiguous()
    args = (x, out, n, float(mu), 1.0 / sigma, 1.0 / (sigma * math.sqrt(2.0 * math.pi)))
    aligned = x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0
    (pdf_kernel_vec4 if aligned else pdf_kernel)(*args)


def reference(x: torch.Tensor, mu: float, sigma: float) -> torch.Tensor:
    z = (x - mu) / sigma
    return torch.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))


spec = kcheck.Spec(
    name="hx32_cuda_gaussian_pdf_vec4",
    kernel=gaussian_pdf,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Scalar(0.5, name="mu"), kcheck.Scalar(1.5, name="sigma")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, max=65535), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

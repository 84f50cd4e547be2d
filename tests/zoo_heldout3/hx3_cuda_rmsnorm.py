"""CUDA C RMSNorm, y = x / sqrt(mean(x^2) + eps) * w, one block of 256 threads per row. The row is read and written
as float4 vectors (four floats per load), with a scalar loop for the last n % 4 elements; the sum of squares is
reduced with warp shuffles and one shared-memory step. fp32, size_t row offsets."""

import torch

import kcheck

EPS = 1e-6

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void rms_norm(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                                    int n, float eps) {
    __shared__ float warp_sums[THREADS / 32];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * (size_t)n;
    float* yr = y + (size_t)blockIdx.x * (size_t)n;
    const int nv = n / 4;
    const float4* xv = reinterpret_cast<const float4*>(xr);

    float ss = 0.0f;
    for (int j = t; j < nv; j += THREADS) {
        const float4 v = xv[j];
        ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
    for (int j = nv * 4 + t; j < n; j += THREADS) ss += xr[j] * xr[j];
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    if ((t & 31) == 0) warp_sums[t >> 5] = ss;
    __syncthreads();
    float total = 0.0f;
    for (int k = 0; k < THREADS / 32; ++k) total += warp_sums[k];
    const float rstd = rsqrtf(total / n + eps);

    const float4* wv = reinterpret_cast<const float4*>(w);
    float4* yv = reinterpret_cast<float4*>(yr);
    for (int j = t; j < nv; j += THREADS) {
        const float4 v = xv[j], g = wv[j];
        yv[j] = make_float4(v.x * rstd * g.x, v.y * rstd * g.y, v.z * rstd * g.z, v.w * rstd * g.w);
    }
    for (int j = nv * 4 + t; j < n; j += THREADS) yr[j] = xr[j] * rstd * w[j];
}
"""

rms_norm_kernel = kcheck.CudaKernel(SOURCE, "rms_norm", grid=lambda x, w, y, n, eps: (x.shape[0],), block=(256,))


def rms_norm(x: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> None:
    M, N = x.shape
    if M and N:
        rms_norm_kernel(x.contiguous(), w.contiguous(), y, N, EPS)


spec = kcheck.Spec(
    name="hx3_cuda_rmsnorm",
    kernel=rms_norm,
    reference=lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", name="weight", pattern="randn")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "misaligned-access"

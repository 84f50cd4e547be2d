"""CUDA C Arias intensity of strong-motion accelerograms (earthquake engineering).

I[m] = pi / (2 g) * dt * sum_t a[m, t]^2     (a in m/s^2, dt the sampling interval, I in m/s)
One block of 256 threads per record: a strided partial sum of squares per thread (fp32), then a tree reduction
in shared memory with a barrier after every halving step; size_t row offsets.
"""

import math

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

DT = 0.01      # 100 Hz records
G = 9.80665

SOURCE = r"""
extern "C" __global__ void arias_intensity(const float* __restrict__ a, float* __restrict__ out, int n, float scale) {
    __shared__ float buf[256];
    const int t = threadIdx.x;
    const float* ar = a + (size_t)blockIdx.x * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        float v = ar[j];
        acc += v * v;
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[blockIdx.x] = scale * buf[0];
}
"""

arias_kernel = kcheck.CudaKernel(SOURCE, "arias_intensity", grid=lambda a, out, n, scale: (a.shape[0],),
                                 block=(256,))


def arias_intensity(acc, out):
    M, N = acc.shape
    if M:
        arias_kernel(acc.contiguous(), out, N, math.pi / (2.0 * G) * DT)


def reference(acc):
    return math.pi / (2.0 * G) * DT * (acc * acc).sum(-1)


spec = kcheck.Spec(
    name="hx35_cuda_arias_intensity",
    kernel=arias_intensity,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="acceleration")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=3000)},
    dtypes=["fp32"],
    reduce=["N"],
)

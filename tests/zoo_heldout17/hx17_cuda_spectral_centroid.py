"""CUDA C spectral centroid of magnitude spectra (audio features: the "brightness" of each frame).

X [M, K] spectrum values per frame (magnitudes |X| are used): out[m] = sum_k k |X[m, k]| / (sum_k |X[m, k]| + eps),
in units of frequency bins. One block of 256 threads per frame: strided partial sums per thread, then a tree
reduction of both sums in shared memory (fp32, size_t row offsets).
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

EPS = 1e-8

SOURCE = r"""
extern "C" __global__ void spectral_centroid(const float* __restrict__ spec, float* __restrict__ out, int m, int k,
                                             float eps) {
    __shared__ float num[256];
    __shared__ float den[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* sr = spec + (size_t)row * (size_t)k;
    float a = 0.0f, b = 0.0f;
    for (int j = t; j < k; j += blockDim.x) {
        const float mag = fabsf(sr[j]);
        a += (float)j * mag;
        b += mag;
    }
    num[t] = a;
    den[t] = b;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            num[t] += num[t + s];
            den[t] += den[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = num[0] / (den[0] + eps);
}
"""

centroid_kernel = kcheck.CudaKernel(SOURCE, "spectral_centroid", grid=lambda s, out, m, k, eps: (m,), block=(256,))


def spectral_centroid(spectrum):
    m, k = spectrum.shape
    spectrum = spectrum.contiguous()
    out = torch.empty((m,), dtype=spectrum.dtype, device=spectrum.device)
    if m:
        centroid_kernel(spectrum, out, m, k, EPS)
    return out


def reference(spectrum):
    mag = spectrum.abs()
    bins = torch.arange(spectrum.shape[-1], dtype=spectrum.dtype, device=spectrum.device)
    return (mag * bins).sum(-1) / (mag.sum(-1) + EPS)


spec = kcheck.Spec(
    name="hx17_cuda_spectral_centroid",
    kernel=spectral_centroid,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K")],
    dims={"M": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=513)},
    dtypes=["fp32"],
    reduce=["K"],
)

"""CUDA C spectral entropy of signal frames (acoustics / EEG): x is [frames, bins] of spectral amplitudes; with
p_f = x_f^2 / sum_f x_f^2 the normalized power spectrum of a frame,

    H = -sum_f p_f ln p_f          (0 ln 0 = 0; a frame with no power has entropy 0)

One block of 256 threads per frame: a strided partial sum of the power per thread, a tree reduction in shared
memory for the total, then a second strided pass and tree reduction for the entropy terms, with a __syncthreads()
after every shared-memory write and before the buffer is reused. fp32 input and output; the power and the entropy
terms in fp64 (the square of an amplitude near fp32's smallest normal underflows in fp32). size_t row offsets.
Runs on a GPU through CuPy; without one kcheck compiles it for sm_90 and skips its cases.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
extern "C" __global__ void spectral_entropy(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ double buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    double acc = 0.0;
    for (int j = t; j < n; j += blockDim.x) {
        const double v = xr[j];
        acc += v * v;
    }
    buf[t] = acc;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    const double total = buf[0];
    __syncthreads();  /* every thread has read the total before buf is reused */
    double h = 0.0;
    if (total > 0.0) {
        const double inv = 1.0 / total;
        for (int j = t; j < n; j += blockDim.x) {
            const double v = xr[j];
            const double p = v * v * inv;
            if (p > 0.0) h -= p * log(p);
        }
    }
    buf[t] = h;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = (float)buf[0];
}
"""

entropy_kernel = kcheck.CudaKernel(SOURCE, "spectral_entropy", grid=lambda x, out, m, n: (m,), block=(256,))


def spectral_entropy(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        entropy_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    power = x * x
    p = power / power.sum(-1, keepdim=True)
    terms = torch.where(p > 0, -p * torch.log(p), torch.zeros_like(p))
    return terms.sum(-1)


spec = kcheck.Spec(
    name="hx37_cuda_spectral_entropy",
    kernel=spectral_entropy,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="amplitudes")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C fast Walsh-Hadamard transform of each row, normalized: y = x H / sqrt(1024), with H the 1024 x 1024
Sylvester Hadamard matrix. The rotation applied before quantization in QuaRot / SpinQuant-style pipelines (outliers
spread across channels), here compiled for the model's rotation size n = 1024 (like HadaCore's kernels, one build
per size), so the Spec fixes N at 1024.

One block per row, 512 threads. Each thread loads two elements of the row into shared memory; then 10 butterfly
stages, in which thread t combines the pair (i, i + h), i = (t / h) * 2h + t % h, in place; finally every thread
writes its two elements scaled by 1 / 32. size_t row offsets.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define HN 1024
extern "C" __global__ void fwht1024_rows(const float* __restrict__ x, float* __restrict__ out) {
    __shared__ float buf[HN];
    const int t = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * HN;
    float* yr = out + (size_t)blockIdx.x * HN;
    buf[t] = xr[t];
    buf[t + HN / 2] = xr[t + HN / 2];
    __syncthreads();
    for (int h = 1; h < HN; h <<= 1) {
        const int i = (t / h) * 2 * h + (t % h);
        const float a = buf[i];
        const float b = buf[i + h];
        buf[i] = a + b;
        buf[i + h] = a - b;
    }
    yr[t] = buf[t] * 0.03125f;
    yr[t + HN / 2] = buf[t + HN / 2] * 0.03125f;
}
"""

fwht_kernel = kcheck.CudaKernel(SOURCE, "fwht1024_rows", grid=lambda x, out: (x.shape[0],), block=(512,))


def hadamard_rows(x: torch.Tensor, out: torch.Tensor) -> None:
    if x.shape[0]:
        fwht_kernel(x.contiguous(), out)


def _sylvester(n: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    h = torch.ones((1, 1), dtype=dtype, device=device)
    while h.shape[0] < n:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h


def reference(x: torch.Tensor) -> torch.Tensor:
    return x @ _sylvester(x.shape[1], x.dtype, x.device) / 32.0


spec = kcheck.Spec(
    name="hx14_cuda_hadamard",
    kernel=hadamard_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1024, max=1024, real=(), large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C frame level in dBFS (acoustics, loudness metering): for M audio frames of N samples (full scale 1.0),

    level[m] = 10 * log10(mean(x[m, :]^2))        (-inf for a silent frame)

One block of 256 threads per frame: a strided partial sum of squares per thread in double (squares of faint
samples stay representable), then a tree reduction in shared memory with a __syncthreads() after staging and
after every step; thread 0 writes the level (float). size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
extern "C" __global__ void frame_dbfs(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ double buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    double acc = 0.0;
    for (int j = t; j < n; j += blockDim.x) {
        const double v = (double)xr[j];
        acc += v * v;
    }
    buf[t] = acc;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = (float)(10.0 * log10(buf[0] / (double)n));
}
"""

frame_dbfs_kernel = kcheck.CudaKernel(SOURCE, "frame_dbfs", grid=lambda x, out, m, n: (m,), block=(256,))


def frame_dbfs(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        frame_dbfs_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    return 10.0 * torch.log10(x.pow(2).mean(-1))


spec = kcheck.Spec(
    name="hx38_cuda_rms_dbfs",
    kernel=frame_dbfs,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="frames")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=200), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C root-mean-square per row: one block of 256 threads per row, a strided sum of squares per thread in fp32,
then a shared-memory tree reduction; thread 0 writes sqrt(sum / n). size_t row offsets."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_rms(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        float v = xr[j];
        acc += v * v;
    }
    buf[t] = acc;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = sqrtf(buf[0] / (float)n);
}
"""

row_rms_kernel = kcheck.CudaKernel(SOURCE, "row_rms", grid=lambda x, out, m, n: (m,), block=(256,))


def row_rms(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0:
        return
    if n == 0:
        out.zero_()
        return
    row_rms_kernel(x.contiguous(), out, m, n)


def reference(x: torch.Tensor) -> torch.Tensor:
    if x.shape[1] == 0:
        return x.new_zeros(x.shape[0])
    return x.pow(2).mean(-1).sqrt()


spec = kcheck.Spec(
    name="hx4_cuda_row_rms",
    kernel=row_rms,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "missing-syncthreads"

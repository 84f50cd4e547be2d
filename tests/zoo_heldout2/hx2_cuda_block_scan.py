"""CUDA C inclusive prefix sum along rows: one block of 256 threads per row walks the row in 256-wide chunks,
a Hillis-Steele scan of each chunk in shared memory, plus the running total of the chunks before it (fp32,
size_t offsets)."""

import torch

import kcheck

SOURCE = r"""
#define BS 256
extern "C" __global__ void row_scan(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[BS];
    __shared__ float carry;
    const int t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (size_t)n;
    if (t == 0) carry = 0.0f;
    for (int start = 0; start < n; start += BS) {
        const int j = start + t;
        buf[t] = j < n ? x[base + j] : 0.0f;
        __syncthreads();
        for (int off = 1; off < BS; off <<= 1) {
            if (t >= off) {
                const float v = buf[t - off];
                __syncthreads();
                buf[t] += v;
            }
            __syncthreads();
        }
        if (j < n) out[base + j] = buf[t] + carry;
        __syncthreads();
        if (t == BS - 1) carry += buf[BS - 1];
        __syncthreads();
    }
}
"""

row_scan_kernel = kcheck.CudaKernel(SOURCE, "row_scan", grid=lambda x, out, m, n: (m,), block=(256,))


def row_scan(x, out):
    m, n = x.shape
    if m and n:
        row_scan_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx2_cuda_block_scan",
    kernel=row_scan,
    reference=lambda x: torch.cumsum(x, -1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"

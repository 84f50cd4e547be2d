"""Bug class: misaligned vector access (float4 loads from rows that are not 16-byte aligned), in CUDA C.

Row sums, one block of 256 threads per row, each thread reading four floats at a time through
``reinterpret_cast<const float4*>(x + row * n)``, then the n % 4 leftover elements one by one, then a tree
reduction in shared memory. A float4 load needs a 16-byte aligned address: row r starts at 4 * r * n bytes past
the (aligned) base, so the rows are aligned only when n % 4 == 0. For n = 1024, and every power of two from 4 on,
the kernel is right; for n = 17, 33 or 129 the second row's first float4 load faults with "misaligned address", a
sticky error that kills the CUDA context. The arithmetic itself is right for every n: the bug is only in the
alignment assumption, so it can only show on a GPU (here kcheck compiles it for sm_90 and skips its cases).
The fix: take the float4 path only when ``n % 4 == 0`` (and the base is aligned), else scalar loads.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_sum_vec4(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    /* BUG: assumes n % 4 == 0: xr is 16-byte aligned only then, and a misaligned float4 load faults */
    const float4* xr4 = reinterpret_cast<const float4*>(xr);
    const int n4 = n / 4;
    float acc = 0.0f;
    for (int j = t; j < n4; j += blockDim.x) {
        const float4 v = xr4[j];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    for (int j = 4 * n4 + t; j < n; j += blockDim.x) acc += xr[j];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0];
}
"""

row_sum_kernel = kcheck.CudaKernel(SOURCE, "row_sum_vec4", grid=lambda x, out, m, n: (m,), block=(256,))


def row_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_sum_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="cuda_misaligned_float4",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "misaligned-access"

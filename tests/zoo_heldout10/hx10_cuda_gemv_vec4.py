"""CUDA C matrix-vector product: out[m] = sum_n x[m, n] * w[n], one block of 256 threads per row.

Each thread reads float4 pairs (the row and w cast to float4 pointers) over the first 4 * (n / 4) elements and
scalars for the rest. The partial sums meet in a shared-memory
tree. fp32, size_t offsets. Runs on a GPU through CuPy; without one kcheck compiles it for sm_90 and skips its
cases.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void gemv_vec4(const float* __restrict__ x, const float* __restrict__ w,
                                     float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    const int n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    const float4* w4 = reinterpret_cast<const float4*>(w);
    float acc = 0.0f;
    for (int k = t; k < n4; k += blockDim.x) {
        const float4 a = x4[k], b = w4[k];
        acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    for (int j = 4 * n4 + t; j < n; j += blockDim.x) acc += xr[j] * w[j];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0];
}
"""

gemv_kernel = kcheck.CudaKernel(SOURCE, "gemv_vec4", grid=lambda x, w, out, m, n: (m,), block=(256,))


def gemv(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        gemv_kernel(x.contiguous(), w.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx10_cuda_gemv_vec4",
    kernel=gemv,
    reference=lambda x, w: x @ w,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "misaligned-access"

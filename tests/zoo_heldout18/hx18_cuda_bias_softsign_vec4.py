"""CUDA C bias + softsign over a (M, N) activation, vectorized: out = z / (1 + |z|), z = x + bias[col].

One thread per 4 consecutive columns of a row, float4 loads and stores where the four elements are in the row
and 16-byte aligned, scalar code otherwise (the row's tail). Grid: (column groups, rows); size_t offsets.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void bias_softsign_vec4(const float* __restrict__ x, const float* __restrict__ bias,
                                              float* __restrict__ out, int m, int n) {
    const int row = blockIdx.y;
    const int c = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (row >= m || c >= n) return;
    const size_t base = (size_t)row * (size_t)n + c;
    const bool vec = c + 3 < n;
    if (vec) {
        float4 v = *reinterpret_cast<const float4*>(x + base);
        float4 b = *reinterpret_cast<const float4*>(bias + c);
        float4 z = make_float4(v.x + b.x, v.y + b.y, v.z + b.z, v.w + b.w);
        *reinterpret_cast<float4*>(out + base) = make_float4(z.x / (1.0f + fabsf(z.x)), z.y / (1.0f + fabsf(z.y)),
                                                             z.z / (1.0f + fabsf(z.z)), z.w / (1.0f + fabsf(z.w)));
    } else {
        for (int k = 0; k < 4 && c + k < n; ++k) {
            float z = x[base + k] + bias[c + k];
            out[base + k] = z / (1.0f + fabsf(z));
        }
    }
}
"""

softsign_kernel = kcheck.CudaKernel(SOURCE, "bias_softsign_vec4",
                                    grid=lambda x, b, out, m, n: ((n + 4 * 128 - 1) // (4 * 128), m),
                                    block=(128,))


def bias_softsign(x, bias, out):
    m, n = x.shape
    if m and n:
        softsign_kernel(x.contiguous(), bias.contiguous(), out, m, n)


def reference(x, bias):
    z = x + bias
    return z / (1 + z.abs())


BUG_CLASS = "misaligned-access"

spec = kcheck.Spec(
    name="hx18_cuda_bias_softsign_vec4",
    kernel=bias_softsign,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="bias")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128, max=65535), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

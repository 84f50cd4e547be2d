"""CUDA C axpby, out = a * x + b * y over a 1-D fp32 tensor, with 128-bit accesses: each thread reads one float4
of x and of y and writes one float4; the last n % 4 elements are handled by the first threads with scalar
accesses. The size is a 32-bit int (n < 2**31)."""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void axpby_vec4(const float* __restrict__ x, const float* __restrict__ y,
                                      float* __restrict__ out, float a, float b, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = n / 4;
    if (i < n4) {
        const float4 xv = reinterpret_cast<const float4*>(x)[i];
        const float4 yv = reinterpret_cast<const float4*>(y)[i];
        float4 o;
        o.x = a * xv.x + b * yv.x;
        o.y = a * xv.y + b * yv.y;
        o.z = a * xv.z + b * yv.z;
        o.w = a * xv.w + b * yv.w;
        reinterpret_cast<float4*>(out)[i] = o;
    }
    const int tail = n - n4 * 4;
    if (i < tail) {
        const int j = n4 * 4 + i;
        out[j] = a * x[j] + b * y[j];
    }
}
"""

THREADS = 256
axpby_kernel = kcheck.CudaKernel(
    SOURCE, "axpby_vec4", grid=lambda x, y, out, a, b, n: ((max(n // 4, 1) + THREADS - 1) // THREADS,),
    block=(THREADS,))


def axpby(x: torch.Tensor, y: torch.Tensor, a: float, b: float) -> torch.Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    n = x.numel()
    if n:
        axpby_kernel(x.contiguous(), y.contiguous(), out, float(a), float(b), n)
    return out


spec = kcheck.Spec(
    name="hx6_cuda_axpby_vec4",
    kernel=axpby,
    reference=lambda x, y, a, b: a * x + b * y,
    inputs=[kcheck.Tensor("N"), kcheck.Tensor("N"), kcheck.Scalar(1.5, name="a"), kcheck.Scalar(-0.75, name="b")],
    dims={"N": kcheck.Dim(nominal=4096, large=False)},  # n is a 32-bit int
    dtypes=["fp32"],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "misaligned-access"

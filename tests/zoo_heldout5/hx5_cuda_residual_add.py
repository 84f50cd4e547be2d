"""CUDA C residual connection: out = x + r over flat fp32 vectors (the skip connection of a transformer block).

Vectorized: each thread handles four consecutive elements with one 16-byte float4 load per operand and one
float4 store (a grid-stride loop over n / 4 groups), and the last n % 4 elements are done one by one by the first
threads. size_t indices throughout.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void residual_add(const float* __restrict__ x, const float* __restrict__ r,
                                        float* __restrict__ out, int n) {
    const size_t groups = (size_t)n / 4;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* r4 = reinterpret_cast<const float4*>(r);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < groups; i += stride) {
        const float4 a = x4[i], b = r4[i];
        o4[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < (unsigned)n % 4) {
        const size_t j = groups * 4 + threadIdx.x;
        out[j] = x[j] + r[j];
    }
}
"""

_THREADS = 256


def _grid(x, r, out, n):
    groups = max(1, n // 4)
    return (min((groups + _THREADS - 1) // _THREADS, 65536),)


residual_kernel = kcheck.CudaKernel(SOURCE, "residual_add", grid=_grid, block=(_THREADS,))


def residual_add(x: torch.Tensor, r: torch.Tensor, out: torch.Tensor) -> None:
    (n,) = x.shape
    if n:
        residual_kernel(x.contiguous(), r.contiguous(), out, n)


spec = kcheck.Spec(
    name="hx5_cuda_residual_add",
    kernel=residual_add,
    reference=torch.add,
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Tensor("N", name="residual")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=1 << 20, large=False)},  # n is an int: below 2**31 elements
    dtypes=["fp32"],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = "misaligned-access"

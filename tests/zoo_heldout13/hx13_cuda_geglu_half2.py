"""CUDA C GeGLU for fp16 MLPs (T5 v1.1, Gemma): out = gelu(gate) * up, exact-erf GELU computed in fp32.

One block per row (rows on grid.x); rows are read and written as __half2 pairs where the row layout allows it,
the rest element by element. size_t row offsets; rows are never longer than an int.
"""

import torch

import kcheck

SOURCE = r"""
#include <cuda_fp16.h>

__device__ __forceinline__ float gelu_erf(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }

extern "C" __global__ void geglu_f16(const __half* __restrict__ gate, const __half* __restrict__ up,
                                     __half* __restrict__ out, int m, int n) {
    const int row = blockIdx.x, t = threadIdx.x;
    const size_t base = (size_t)row * (size_t)n;
    const int npairs = n / 2;
    const __half2* g2 = reinterpret_cast<const __half2*>(gate + base);
    const __half2* u2 = reinterpret_cast<const __half2*>(up + base);
    __half2* o2 = reinterpret_cast<__half2*>(out + base);
    for (int i = t; i < npairs; i += blockDim.x) {
        const float2 g = __half22float2(g2[i]);
        const float2 u = __half22float2(u2[i]);
        o2[i] = __floats2half2_rn(gelu_erf(g.x) * u.x, gelu_erf(g.y) * u.y);
    }
    for (int j = 2 * npairs + t; j < n; j += blockDim.x) {
        out[base + j] = __float2half_rn(gelu_erf(__half2float(gate[base + j])) * __half2float(up[base + j]));
    }
}
"""

geglu_kernel = kcheck.CudaKernel(SOURCE, "geglu_f16", grid=lambda g, u, o, m, n: (m,), block=(128,))


def geglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    M, N = gate.shape
    out = torch.empty((M, N), dtype=gate.dtype, device=gate.device)
    if M and N:
        geglu_kernel(gate.contiguous(), up.contiguous(), out, M, N)
    return out


def reference(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(gate) * up


BUG_CLASS = "misaligned-access"

spec = kcheck.Spec(
    name="hx13_cuda_geglu_half2",
    kernel=geglu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="gate"), kcheck.Tensor("M", "N", name="up")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp16"],
)

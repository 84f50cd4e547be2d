"""CUDA C energetic sum of two sound pressure levels in dB, elementwise::

    L = 10 log10(10^(L1/10) + 10^(L2/10)) = max(L1, L2) + 10 log10(1 + 10^(-|L1 - L2| / 10))

(the second form never overflows, whatever the levels). Four levels per thread through float4 loads and stores
when n is a multiple of 4 and every buffer starts on a 16-byte boundary, one per thread otherwise. Runs on a GPU
through CuPy; without one kcheck compiles it for sm_90 and skips its cases."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float level_sum(float l1, float l2) {
    const float hi = fmaxf(l1, l2);
    const float d = fabsf(l1 - l2);
    return hi + 10.0f * log10f(1.0f + exp10f(-0.1f * d));
}

extern "C" __global__ void sound_level_sum(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ out, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) out[i] = level_sum(a[i], b[i]);
}

extern "C" __global__ void sound_level_sum4(const float4* __restrict__ a, const float4* __restrict__ b,
                                            float4* __restrict__ out, int n4) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n4) return;
    const float4 x = a[i], y = b[i];
    out[i] = make_float4(level_sum(x.x, y.x), level_sum(x.y, y.y), level_sum(x.z, y.z), level_sum(x.w, y.w));
}
"""

scalar_kernel = kcheck.CudaKernel(SOURCE, "sound_level_sum", grid=lambda a, b, o, n: ((n + 255) // 256,),
                                  block=(256,))
vector_kernel = kcheck.CudaKernel(SOURCE, "sound_level_sum4", grid=lambda a, b, o, n4: ((n4 + 255) // 256,),
                                  block=(256,))


def sound_level_sum(l1: torch.Tensor, l2: torch.Tensor, out: torch.Tensor) -> None:
    n = l1.shape[0]
    if n == 0:
        return
    if n % 4 == 0 and out.data_ptr() % 16 == 0:
        vector_kernel(l1, l2, out, n // 4)
    else:
        scalar_kernel(l1.contiguous(), l2.contiguous(), out, n)


def reference(l1: torch.Tensor, l2: torch.Tensor) -> torch.Tensor:
    hi = torch.fmax(l1, l2)
    d = (l1 - l2).abs()
    return hi + 10 * torch.log10(1 + torch.pow(10.0, -0.1 * d))


spec = kcheck.Spec(
    name="cuda_sound_level_sum",
    kernel=sound_level_sum,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="level_1"), kcheck.Tensor("N", name="level_2")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

"""CUDA C fine-grained (1 x 128 group) symmetric int8 quantization of activations, as DeepSeek-V3-style block
quantized GEMMs and W8A8 serving use it: for each row and each group of 128 consecutive columns,

    scale = amax / 127,   q = clamp(rint(x / scale), -127, 127)

x is [M, K]; q [M, K] int8 and the scales [M, ceil(K / 128)] fp32 are returned. One block of 128 threads per
(row, group): each thread loads one element, the group's absolute max is reduced with warp shuffles and a 4-entry
shared array, then each thread writes its code and thread 0 the scale. size_t offsets. Inputs are finite: int8 has
no code for NaN or infinity, so the quantizer's contract leaves the nonfinite pattern out.
"""

import torch
import torch.nn.functional as F

import kcheck

BUG_CLASS = "kernel-crash"

GROUP = 128

SOURCE = r"""
#include <assert.h>

extern "C" __global__ void group_quant_int8(const float* __restrict__ x, signed char* __restrict__ q,
                                            float* __restrict__ scales, int K, int groups) {
    __shared__ float warp_max[4];
    const size_t row = blockIdx.x / groups;
    const int g = blockIdx.x % groups;
    const int col = g * 128 + threadIdx.x;
    const bool inside = col < K;
    const float v = inside ? x[row * (size_t)K + col] : 0.0f;
    float a = fabsf(v);
    for (int o = 16; o > 0; o >>= 1) a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, o));
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = a;
    __syncthreads();
    const float amax = fmaxf(fmaxf(warp_max[0], warp_max[1]), fmaxf(warp_max[2], warp_max[3]));
    assert(amax > 0.0f);
    const float scale = amax / 127.0f;
    if (inside) q[row * (size_t)K + col] = (signed char)fminf(fmaxf(rintf(v / scale), -127.0f), 127.0f);
    if (threadIdx.x == 0) scales[row * (size_t)groups + g] = scale;
}
"""

quant_kernel = kcheck.CudaKernel(SOURCE, "group_quant_int8",
                                 grid=lambda x, q, scales, K, groups: (x.shape[0] * groups,), block=(GROUP,))


def group_quant_int8(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, K = x.shape
    groups = -(-K // GROUP)
    q = torch.zeros((M, K), dtype=torch.int8, device=x.device)
    scales = torch.empty((M, groups), dtype=torch.float32, device=x.device)
    if M and K:
        quant_kernel(x.contiguous(), q, scales, K, groups)
    return q, scales


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Computed in fp32 with the kernel's operations (IEEE division, round half to even), so the int8 codes match
    exactly rather than within a tolerance."""
    M, K = x.shape
    groups = -(-K // GROUP)
    xg = F.pad(x.float(), (0, groups * GROUP - K)).view(M, groups, GROUP)
    amax = xg.abs().amax(dim=-1)
    scale = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))
    q = torch.round(xg / scale[..., None]).clamp(-127, 127).to(torch.int8).view(M, groups * GROUP)[:, :K]
    return q.contiguous(), scale.to(x.dtype)


spec = kcheck.Spec(
    name="hx14_cuda_group_quant_int8",
    kernel=group_quant_int8,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)

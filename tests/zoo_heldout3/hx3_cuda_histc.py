"""CUDA C histogram, as `torch.histc(x, bins, min=lo, max=hi)`: BINS equal-width bins over [lo, hi], a value equal
to hi counted in the last bin, values outside ignored. A grid-stride loop; each block counts into its own histogram
in shared memory (atomics on shared memory are cheap) and then adds its non-zero counts to the global one."""

import torch

import kcheck

BINS = 64
LO, HI = -4.0, 4.0

SOURCE = r"""
#define MAX_BINS 256
extern "C" __global__ void histc(const float* __restrict__ x, float* __restrict__ out, int n, int bins,
                                 float lo, float hi) {
    __shared__ unsigned int local[MAX_BINS];
    const float scale = bins / (hi - lo);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float v = x[i];
        if (v >= lo && v <= hi) {
            int b = (int)((v - lo) * scale);
            if (b >= bins) b = bins - 1;
            atomicAdd(&local[b], 1u);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        if (local[b]) atomicAdd(&out[b], (float)local[b]);
    }
}
"""

histc_kernel = kcheck.CudaKernel(SOURCE, "histc", grid=lambda x, out, n, bins, lo, hi: (min((n + 255) // 256, 528),),
                                 block=(256,))


def histc(x: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(BINS, dtype=torch.float32, device=x.device)
    n = x.numel()
    if n:
        histc_kernel(x.contiguous(), out, n, BINS, LO, HI)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    inside = (x >= LO) & (x <= HI)
    b = ((x[inside] - LO) * (BINS / (HI - LO))).floor().long().clamp(max=BINS - 1)
    return torch.bincount(b, minlength=BINS).to(x.dtype)


spec = kcheck.Spec(
    name="hx3_cuda_histc",
    kernel=histc,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=1 << 16, large=False)},  # int n: up to 2**31 - 1 elements
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "uninitialized-accumulator"

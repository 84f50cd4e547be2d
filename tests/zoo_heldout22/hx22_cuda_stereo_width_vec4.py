"""CUDA C stereo width (mid/side) processing of a left/right channel pair, float4 fast path.

    mid = (L + R) / 2,   side = (L - R) / 2 * WIDTH,   L' = mid + side,   R' = mid - side

WIDTH = 1 leaves the image unchanged, 0 folds it to mono, > 1 widens it. The vector kernel reads and writes four
samples per thread as float4 (the n % 4 tail element-wise) and is used when every buffer is 16-byte aligned; the
scalar kernel takes the rest. The launcher works in chunks of at most 2**30 samples (int counts, size_t indices).
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

WIDTH = 1.5
CHUNK = 1 << 30

SOURCE = r"""
__device__ __forceinline__ void widen(float l, float r, float w, float* lo, float* ro) {
    const float mid = 0.5f * (l + r), side = 0.5f * (l - r) * w;
    *lo = mid + side;
    *ro = mid - side;
}

extern "C" __global__ void stereo_width_vec4(const float* __restrict__ l, const float* __restrict__ r,
                                             float* __restrict__ lo, float* __restrict__ ro, int n, float w) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t n4 = (size_t)n / 4;
    if (i < n4) {
        const float4 a = reinterpret_cast<const float4*>(l)[i];
        const float4 b = reinterpret_cast<const float4*>(r)[i];
        float4 p, q;
        widen(a.x, b.x, w, &p.x, &q.x);
        widen(a.y, b.y, w, &p.y, &q.y);
        widen(a.z, b.z, w, &p.z, &q.z);
        widen(a.w, b.w, w, &p.w, &q.w);
        reinterpret_cast<float4*>(lo)[i] = p;
        reinterpret_cast<float4*>(ro)[i] = q;
    }
    if (i < (size_t)n % 4) {
        const size_t k = 4 * n4 + i;
        widen(l[k], r[k], w, &lo[k], &ro[k]);
    }
}

extern "C" __global__ void stereo_width(const float* __restrict__ l, const float* __restrict__ r,
                                        float* __restrict__ lo, float* __restrict__ ro, int n, float w) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) widen(l[i], r[i], w, &lo[i], &ro[i]);
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "stereo_width_vec4", block=(256,),
                                grid=lambda l, r, lo, ro, n, w: ((max(n // 4, 1) + 255) // 256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "stereo_width", block=(256,),
                                  grid=lambda l, r, lo, ro, n, w: ((n + 255) // 256,))


def stereo_width(left: torch.Tensor, right: torch.Tensor):
    left, right = left.contiguous(), right.contiguous()
    lo, ro = torch.empty_like(left), torch.empty_like(right)
    for s in range(0, left.numel(), CHUNK):
        bufs = [t[s:s + CHUNK] for t in (left, right, lo, ro)]
        n = bufs[0].numel()
        if all(t.data_ptr() % 16 == 0 for t in bufs[2:]):
            vec4_kernel(*bufs, n, WIDTH)
        else:
            scalar_kernel(*bufs, n, WIDTH)
    return lo, ro


def reference(left: torch.Tensor, right: torch.Tensor):
    mid = 0.5 * (left + right)
    side = 0.5 * (left - right) * WIDTH
    return mid + side, mid - side


spec = kcheck.Spec(
    name="hx22_cuda_stereo_width_vec4",
    kernel=stereo_width,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="left"), kcheck.Tensor("N", name="right")],
    dims={"N": kcheck.Dim(nominal=48000, real=(44100,))},
    dtypes=["fp32"],
)

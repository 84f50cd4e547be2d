"""CUDA C interpolation between the two halves of a packed [M, 2N] tensor (two weight sets or two model states
stored side by side, e.g. for checkpoint merging): out[m, n] = a + w * (b - a), a = packed[m, n],
b = packed[m, N + n].

One block of 128 threads per row; each row is read and written as float4 (4 floats per 16-byte access) with a
scalar loop for the last N % 4 columns. size_t offsets.

Planted bug (misaligned-access): the float4 pointers are formed at packed + row * 2N, packed + row * 2N + N and
out + row * N without checking alignment: when N is not a multiple of 4, the second half (and the output rows past
the first) start off a 16-byte boundary, and a float4 load or store there is a misaligned address fault on the GPU.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void packed_lerp(const float* __restrict__ packed, float* __restrict__ out, int n, float w) {
    const size_t row = blockIdx.x;
    const float* a = packed + row * (size_t)2 * (size_t)n;
    const float* b = a + n;
    float* o = out + row * (size_t)n;
    const int n4 = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* o4 = reinterpret_cast<float4*>(o);
    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        const float4 va = a4[i], vb = b4[i];
        float4 r;
        r.x = va.x + w * (vb.x - va.x);
        r.y = va.y + w * (vb.y - va.y);
        r.z = va.z + w * (vb.z - va.z);
        r.w = va.w + w * (vb.w - va.w);
        o4[i] = r;
    }
    for (int j = 4 * n4 + threadIdx.x; j < n; j += blockDim.x) o[j] = a[j] + w * (b[j] - a[j]);
}
"""

lerp_kernel = kcheck.CudaKernel(SOURCE, "packed_lerp", grid=lambda p, out, n, w: (p.shape[0],), block=(128,))


def packed_lerp(packed, weight=0.25):
    m, p = packed.shape
    n = p // 2
    out = torch.empty((m, n), dtype=packed.dtype, device=packed.device)
    if m and n:
        lerp_kernel(packed.contiguous(), out, n, float(weight))
    return out


def reference(packed, weight=0.25):
    n = packed.shape[1] // 2
    a, b = packed[:, :n], packed[:, n:2 * n]
    return a + weight * (b - a)


spec = kcheck.Spec(
    name="hx11_cuda_packed_lerp_vec4",
    kernel=packed_lerp,
    reference=reference,
    inputs=[kcheck.Tensor("M", "P")],
    dims={"M": kcheck.Dim(nominal=64), "P": kcheck.Dim(nominal=2048, multiple_of=2, large=False)},
    params={"weight": [0.25, 0.9]},
    dtypes=["fp32"],
)

BUG_CLASS = "misaligned-access"  # float4 access at packed + row*2N + N / out + row*N when N % 4 != 0

"""CUDA C dark-frame and gain correction of a detector image (photogrammetry / astronomy): out = (raw - dark) * gain
per pixel, for [M, N] images. One block row of threads per image row (grid.y = row); where every row starts on a
16-byte boundary (N a multiple of 4 and 16-byte aligned buffers) the row is processed as float4, otherwise one
float at a time. size_t offsets."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
extern "C" __global__ void dark_gain_vec4(const float* __restrict__ raw, const float* __restrict__ dark,
                                          const float* __restrict__ gain, float* __restrict__ out, int n, int m) {
    const size_t row = blockIdx.y;
    if ((int)row >= m) return;
    const int j4 = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * j4 >= n) return;
    const size_t off = row * (size_t)n + 4 * (size_t)j4;
    const float4 r = *reinterpret_cast<const float4*>(raw + off);
    const float4 d = *reinterpret_cast<const float4*>(dark + off);
    const float4 g = *reinterpret_cast<const float4*>(gain + off);
    float4 o;
    o.x = (r.x - d.x) * g.x; o.y = (r.y - d.y) * g.y; o.z = (r.z - d.z) * g.z; o.w = (r.w - d.w) * g.w;
    *reinterpret_cast<float4*>(out + off) = o;
}

extern "C" __global__ void dark_gain(const float* __restrict__ raw, const float* __restrict__ dark,
                                     const float* __restrict__ gain, float* __restrict__ out, int n, int m) {
    const size_t row = blockIdx.y;
    if ((int)row >= m) return;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const size_t off = row * (size_t)n + j;
    out[off] = (raw[off] - dark[off]) * gain[off];
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "dark_gain_vec4", grid=lambda r, d, g, o, n, m: ((n // 4 + 127) // 128, m),
                                block=(128,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "dark_gain", grid=lambda r, d, g, o, n, m: ((n + 127) // 128, m),
                                  block=(128,))


def flat_field_correct(raw: torch.Tensor, dark: torch.Tensor, gain: torch.Tensor, out: torch.Tensor) -> None:
    m, n = raw.shape
    if m == 0 or n == 0:
        return
    raw, dark, gain = raw.contiguous(), dark.contiguous(), gain.contiguous()
    aligned = all(t.data_ptr() % 16 == 0 for t in (raw, dark, gain, out))
    for start in range(0, m, 65535):
        rows = min(65535, m - start)
        args = [t[start:start + rows] for t in (raw, dark, gain, out)]
        (vec4_kernel if aligned else scalar_kernel)(*args, n, rows)


spec = kcheck.Spec(
    name="cuda_flat_field_correction_gain",
    kernel=flat_field_correct,
    reference=lambda raw, dark, gain: (raw - dark) * gain,
    inputs=[kcheck.Tensor("M", "N", name="raw"), kcheck.Tensor("M", "N", name="dark"),
            kcheck.Tensor("M", "N", name="gain")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    dtypes=["fp32"],
)

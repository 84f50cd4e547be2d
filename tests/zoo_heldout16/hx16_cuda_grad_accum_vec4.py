"""CUDA C gradient accumulation with loss-scale removal (mixed-precision training's micro-batch step):
out = acc + g * inv_scale, fp32, (M, N) row-major. One block of 256 threads per row; rows move as float4
(16-byte loads and stores) where the addresses allow it, the rest element by element. size_t offsets."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void grad_accum(const float* __restrict__ acc, const float* __restrict__ g,
                                      float* __restrict__ out, int rows, int n, float inv_scale) {
    const int row = blockIdx.x, tid = threadIdx.x;
    const size_t base = (size_t)row * (size_t)n;
    const float* ar = acc + base;
    const float* gr = g + base;
    float* orow = out + base;
    int done = 0;
    if ((reinterpret_cast<size_t>(acc) & 15) == 0 && (reinterpret_cast<size_t>(g) & 15) == 0) {
        const int n4 = n >> 2;
        const float4* a4 = reinterpret_cast<const float4*>(ar);
        const float4* g4 = reinterpret_cast<const float4*>(gr);
        float4* o4 = reinterpret_cast<float4*>(orow);
        for (int i = tid; i < n4; i += THREADS) {
            float4 a = a4[i], b = g4[i];
            o4[i] = make_float4(a.x + b.x * inv_scale, a.y + b.y * inv_scale, a.z + b.z * inv_scale,
                                a.w + b.w * inv_scale);
        }
        done = n4 << 2;
    }
    for (int j = done + tid; j < n; j += THREADS) orow[j] = ar[j] + gr[j] * inv_scale;
}
"""

grad_accum_kernel = kcheck.CudaKernel(SOURCE, "grad_accum", grid=lambda a, g, o, m, n, s: (m,), block=(256,))


def grad_accum(acc: torch.Tensor, g: torch.Tensor, out: torch.Tensor, inv_scale: float) -> None:
    M, N = acc.shape
    if M == 0 or N == 0:
        return
    dst = out if out.is_contiguous() else torch.empty((M, N), dtype=out.dtype, device=out.device)
    grad_accum_kernel(acc.contiguous(), g.contiguous(), dst, M, N, inv_scale)
    if dst is not out:
        out.copy_(dst)


spec = kcheck.Spec(
    name="hx16_cuda_grad_accum_vec4",
    kernel=grad_accum,
    reference=lambda acc, g, inv_scale: acc + g * inv_scale,
    inputs=[kcheck.Tensor("M", "N", name="acc"), kcheck.Tensor("M", "N", name="grad")],
    outputs=[kcheck.Tensor("M", "N")],
    params={"inv_scale": [1.0 / 1024, 1.0 / 65536]},
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
)

"""CUDA C position update of velocity-Verlet integration (molecular dynamics, particle / cloth simulation).

x, v, a [M, N] (M systems of N coordinates): x_new = x + v dt + a dt^2 / 2, dt a mode. 1-D grid of 256-thread
blocks over (row, group of 4 columns); each thread handles 4 consecutive coordinates of one row, with float4 loads
and stores where the row is 16-byte aligned and a scalar path otherwise.
"""

import torch
import triton

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
extern "C" __global__ void verlet_position(const float* __restrict__ x, const float* __restrict__ v,
                                           const float* __restrict__ a, float* __restrict__ out, int m, int n,
                                           float dt) {
    const size_t groups = ((size_t)n + 3) / 4;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= (size_t)m * groups) return;
    const size_t base = (g / groups) * (size_t)n;
    const int j = 4 * (int)(g % groups);
    const float h = 0.5f * dt * dt;
    if (j + 3 < n) {
        const float4 xv = *reinterpret_cast<const float4*>(x + base + j);
        const float4 vv = *reinterpret_cast<const float4*>(v + base + j);
        const float4 av = *reinterpret_cast<const float4*>(a + base + j);
        float4 o;
        o.x = xv.x + vv.x * dt + h * av.x;
        o.y = xv.y + vv.y * dt + h * av.y;
        o.z = xv.z + vv.z * dt + h * av.z;
        o.w = xv.w + vv.w * dt + h * av.w;
        *reinterpret_cast<float4*>(out + base + j) = o;
    } else {
        const int end = min(j + 4, n);
        for (int c = j; c < end; ++c) out[base + c] = x[base + c] + v[base + c] * dt + h * a[base + c];
    }
}
"""

verlet_kernel = kcheck.CudaKernel(
    SOURCE, "verlet_position",
    grid=lambda x, v, a, out, m, n, dt: (triton.cdiv(m * triton.cdiv(n, 4), 256),), block=(256,))


def verlet_position(x, v, a, dt=0.01):
    m, n = x.shape
    x, v, a = x.contiguous(), v.contiguous(), a.contiguous()
    out = torch.empty_like(x)
    if m and n:
        verlet_kernel(x, v, a, out, m, n, dt)
    return out


def reference(x, v, a, dt=0.01):
    return x + v * dt + 0.5 * a * dt * dt


spec = kcheck.Spec(
    name="hx17_cuda_verlet_position",
    kernel=verlet_position,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="v"), kcheck.Tensor("M", "N", name="a")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    params={"dt": [0.01, 0.5]},
    dtypes=["fp32"],
)

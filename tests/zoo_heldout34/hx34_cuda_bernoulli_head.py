"""CUDA C total hydraulic head along a pipe network's sample points (Bernoulli's equation):

    H = z + p / (rho * g) + v^2 / (2 g),

elevation head (m), pressure head (p in Pa, water at rho = 998.2 kg/m^3) and velocity head (v in m/s). An
element-wise kernel with a float4 path: when every array starts on a 16-byte boundary and N is a multiple of 4, each
thread handles four points through float4 loads and stores; otherwise one point per thread. Grid-stride loops,
size_t indices; the launcher feeds at most 2**30 points per launch (the count is a 32-bit int).
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

RHO = 998.2
G = 9.80665

SOURCE = r"""
extern "C" __global__ void bernoulli_head(const float* __restrict__ z, const float* __restrict__ p,
                                          const float* __restrict__ v, float* __restrict__ h, int n,
                                          float inv_rho_g, float inv_2g, int vec4) {
    const size_t start = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    if (vec4) {
        const float4* z4 = reinterpret_cast<const float4*>(z);
        const float4* p4 = reinterpret_cast<const float4*>(p);
        const float4* v4 = reinterpret_cast<const float4*>(v);
        float4* h4 = reinterpret_cast<float4*>(h);
        for (size_t i = start; i < (size_t)n / 4; i += step) {
            const float4 a = z4[i], b = p4[i], c = v4[i];
            float4 r;
            r.x = a.x + b.x * inv_rho_g + c.x * c.x * inv_2g;
            r.y = a.y + b.y * inv_rho_g + c.y * c.y * inv_2g;
            r.z = a.z + b.z * inv_rho_g + c.z * c.z * inv_2g;
            r.w = a.w + b.w * inv_rho_g + c.w * c.w * inv_2g;
            h4[i] = r;
        }
    } else {
        for (size_t i = start; i < (size_t)n; i += step) h[i] = z[i] + p[i] * inv_rho_g + v[i] * v[i] * inv_2g;
    }
}
"""

def _grid(z, p, v, h, n, inv_rho_g, inv_2g, vec4):
    work = n // 4 if vec4 else n
    return (max(1, min(4096, (work + 255) // 256)),)


head_kernel = kcheck.CudaKernel(SOURCE, "bernoulli_head", grid=_grid, block=(256,))


CHUNK = 2**30


def bernoulli_head(z: torch.Tensor, p: torch.Tensor, v: torch.Tensor, h: torch.Tensor) -> None:
    z, p, v = (t if t.stride(0) == 1 else t.contiguous() for t in (z, p, v))
    for start in range(0, z.shape[0], CHUNK):
        parts = [t[start:start + CHUNK] for t in (z, p, v, h)]
        n = parts[0].shape[0]
        vec4 = n % 4 == 0 and all(t.is_contiguous() for t in parts)
        head_kernel(*parts, n, 1.0 / (RHO * G), 0.5 / G, int(vec4))


def reference(z: torch.Tensor, p: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return z + p / (RHO * G) + v * v / (2.0 * G)


spec = kcheck.Spec(
    name="cuda_bernoulli_head",
    kernel=bernoulli_head,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="elevation"), kcheck.Tensor("N", name="pressure"),
            kcheck.Tensor("N", name="velocity")],
    outputs=[kcheck.Tensor("N", name="head")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

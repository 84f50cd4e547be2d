"""CUDA C gravitational N-body accelerations with Plummer softening, tiled through shared memory (the GPU Gems 3
scheme):

    a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)      (G = 1; j = i contributes 0)

One thread per body i, 128 threads per block. The bodies are visited in tiles of 128: each thread stages one body
of the tile (position and mass) in shared memory, the block synchronizes, every thread accumulates the tile's
contributions to its own acceleration, and the block synchronizes again before the tile is overwritten. fp32,
size_t offsets, positions [N, 3] and masses [N] read through their strides; the output is [N, 3].
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOFTENING = 0.05

SOURCE = r"""
#define TILE 128
extern "C" __global__ void nbody_accel(const float* __restrict__ pos, const float* __restrict__ mass,
                                       float* __restrict__ acc, int n, int sp, int sc, int sm, float eps2) {
    __shared__ float sx[TILE], sy[TILE], sz[TILE], smass[TILE];
    const int t = threadIdx.x;
    const int i = blockIdx.x * TILE + t;
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;
    if (i < n) {
        const float* p = pos + (size_t)i * sp;
        xi = p[0]; yi = p[(size_t)sc]; zi = p[2 * (size_t)sc];
    }
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j0 = 0; j0 < n; j0 += TILE) {
        const int j = j0 + t;
        if (j < n) {
            const float* p = pos + (size_t)j * sp;
            sx[t] = p[0]; sy[t] = p[(size_t)sc]; sz[t] = p[2 * (size_t)sc];
            smass[t] = mass[(size_t)j * sm];
        } else {
            sx[t] = 0.0f; sy[t] = 0.0f; sz[t] = 0.0f; smass[t] = 0.0f;
        }
        const int count = min(TILE, n - j0);
        for (int k = 0; k < count; ++k) {
            const float dx = sx[k] - xi, dy = sy[k] - yi, dz = sz[k] - zi;
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            const float inv = rsqrtf(r2);
            const float s = smass[k] * inv * inv * inv;
            ax += dx * s; ay += dy * s; az += dz * s;
        }
        __syncthreads();
    }
    if (i < n) {
        float* a = acc + (size_t)i * 3;
        a[0] = ax; a[1] = ay; a[2] = az;
    }
}
"""

nbody_kernel = kcheck.CudaKernel(SOURCE, "nbody_accel", grid=lambda pos, mass, acc, n, *rest: ((n + 127) // 128,),
                                 block=(128,))


def nbody_acceleration(pos: torch.Tensor, mass: torch.Tensor) -> torch.Tensor:
    n = pos.shape[0]
    acc = torch.empty((n, 3), dtype=torch.float32, device=pos.device)
    if n:
        nbody_kernel(pos, mass, acc, n, pos.stride(0), pos.stride(1), mass.stride(0), SOFTENING * SOFTENING)
    return acc


def reference(pos: torch.Tensor, mass: torch.Tensor) -> torch.Tensor:
    d = pos[None, :, :] - pos[:, None, :]  # d[i, j] = r_j - r_i
    r2 = (d * d).sum(-1) + SOFTENING * SOFTENING
    return (mass[None, :, None] * d / r2[:, :, None] ** 1.5).sum(1)


spec = kcheck.Spec(
    name="cuda_nbody_acceleration",
    kernel=nbody_acceleration,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="positions"), kcheck.Tensor("N", pattern="randn", name="masses")],
    dims={"N": kcheck.Dim(nominal=1000, max=4096)},  # O(N^2) work and a float64 [N, N, 3] reference
    dtypes=["fp32"],
    reduce=["N"],
)

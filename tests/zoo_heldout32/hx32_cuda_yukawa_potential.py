"""CUDA C screened-Coulomb (Yukawa / Debye-Hueckel) potential at every particle of a set, all pairs:

    phi_i = sum_{j != i} q_j exp(-kappa r_ij) / r_ij,   r_ij = sqrt(|p_i - p_j|^2 + eps^2)

(Plummer softening eps against coincident particles; kappa is the inverse screening length). The classic tiled
n-body scheme: one thread per particle i, 128 threads per block; the block walks the particles in tiles of 128,
each thread staging one (x, y, z, q) of the tile in shared memory, a __syncthreads() before the tile is read and
another before it is overwritten; each tile's terms are summed apart, then added to the running total (two-level
summation). Threads past the end still stage and synchronize. fp32, size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

EPS = 0.05

SOURCE = r"""
#define TILE 128
extern "C" __global__ void yukawa_potential(const float* __restrict__ pos, const float* __restrict__ q,
                                            float* __restrict__ phi, int n, float kappa, float eps2) {
    __shared__ float4 tile[TILE];
    const int i = blockIdx.x * TILE + threadIdx.x;
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;
    if (i < n) {
        xi = pos[(size_t)i * 3 + 0];
        yi = pos[(size_t)i * 3 + 1];
        zi = pos[(size_t)i * 3 + 2];
    }
    float acc = 0.0f;
    for (int base = 0; base < n; base += TILE) {
        const int j = base + threadIdx.x;
        float4 p = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (j < n) p = make_float4(pos[(size_t)j * 3 + 0], pos[(size_t)j * 3 + 1], pos[(size_t)j * 3 + 2], q[j]);
        tile[threadIdx.x] = p;
        const int count = min(TILE, n - base);
        float part = 0.0f;  /* each tile summed apart, then added: two-level summation */
        for (int k = 0; k < count; ++k) {
            const float4 o = tile[k];
            const float dx = o.x - xi, dy = o.y - yi, dz = o.z - zi;
            const float r = sqrtf(dx * dx + dy * dy + dz * dz + eps2);
            if (base + k != i) part += o.w * expf(-kappa * r) / r;
        }
        acc += part;
        __syncthreads();
    }
    if (i < n) phi[i] = acc;
}
"""

yukawa_kernel = kcheck.CudaKernel(SOURCE, "yukawa_potential",
                                  grid=lambda pos, q, phi, n, kappa, eps2: ((n + 127) // 128,), block=(128,))


def yukawa_potential(pos: torch.Tensor, q: torch.Tensor, kappa: float, phi: torch.Tensor) -> None:
    n = pos.shape[0]
    if n:
        yukawa_kernel(pos.contiguous(), q.contiguous(), phi, n, float(kappa), EPS * EPS)


def reference(pos: torch.Tensor, q: torch.Tensor, kappa: float) -> torch.Tensor:
    d = pos[None, :, :] - pos[:, None, :]  # [i, j, 3]
    r = torch.sqrt((d * d).sum(-1) + EPS * EPS)
    terms = q[None, :] * torch.exp(-kappa * r) / r
    self_pair = torch.eye(pos.shape[0], dtype=torch.bool, device=pos.device)
    return torch.where(self_pair, torch.zeros_like(terms), terms).sum(-1)


spec = kcheck.Spec(
    name="hx32_cuda_yukawa_potential",
    kernel=yukawa_potential,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="positions"), kcheck.Tensor("N", name="charges"),
            kcheck.Scalar(0.1, name="kappa")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=1000, max=8192, real=())},
    dtypes=["fp32"],
    reduce=["N"],
)

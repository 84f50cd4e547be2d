"""CUDA C softened gravitational potential of an N-body system (the all-pairs kernel of a direct-summation code):

    phi[i] = -sum_j m[j] / sqrt(|r_i - r_j|^2 + eps^2),   eps = 0.01 (the self-term included, as softened codes do)

pos is [P, 3], mass is [P], fp32. One thread per body, 256 per block; the sources are staged through shared memory
one 256-body tile at a time (each thread loads one body of the tile, the block waits, every thread sweeps the tile,
the block waits again before the next tile overwrites it). Missing bodies of the last tile get mass 0."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"
EPS = 0.01

SOURCE = r"""
#define TILE 256
extern "C" __global__ void gravity_potential(const float* __restrict__ pos, const float* __restrict__ mass,
                                             float* __restrict__ phi, int p, float eps2) {
    __shared__ float4 src[TILE];
    const int i = blockIdx.x * TILE + threadIdx.x;
    float xi = 0.f, yi = 0.f, zi = 0.f;
    if (i < p) {
        xi = pos[(size_t)i * 3 + 0];
        yi = pos[(size_t)i * 3 + 1];
        zi = pos[(size_t)i * 3 + 2];
    }
    float acc = 0.f;
    for (int start = 0; start < p; start += TILE) {
        const int j = start + threadIdx.x;
        float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
        if (j < p) s = make_float4(pos[(size_t)j * 3 + 0], pos[(size_t)j * 3 + 1], pos[(size_t)j * 3 + 2], mass[j]);
        src[threadIdx.x] = s;
        for (int k = 0; k < TILE; ++k) {
            const float dx = xi - src[k].x, dy = yi - src[k].y, dz = zi - src[k].z;
            acc += src[k].w * rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
        }
        __syncthreads();
    }
    if (i < p) phi[i] = -acc;
}
"""

gravity_kernel = kcheck.CudaKernel(SOURCE, "gravity_potential", grid=lambda pos, mass, phi, p, eps2: ((p + 255) // 256,),
                                   block=(256,))


def gravity_potential(pos: torch.Tensor, mass: torch.Tensor, phi: torch.Tensor) -> None:
    p = pos.shape[0]
    if p:
        gravity_kernel(pos.contiguous(), mass.contiguous(), phi, p, EPS * EPS)


def masses(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (0.1 + torch.rand((ctx.dims["P"],), generator=ctx.generator)).to(ctx.dtype).to(ctx.device)


def reference(pos: torch.Tensor, mass: torch.Tensor) -> torch.Tensor:
    d2 = (pos[:, None, :] - pos[None, :, :]).pow(2).sum(-1)
    return -(mass[None, :] / torch.sqrt(d2 + EPS * EPS)).sum(-1)


spec = kcheck.Spec(
    name="hx19_cuda_gravity_potential",
    kernel=gravity_potential,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="pos"), kcheck.Custom(masses, name="mass", dims=("P",))],
    outputs=[kcheck.Tensor("P")],
    dims={"P": kcheck.Dim(nominal=1000, max=4096, real=(), large=False)},
    dtypes=["fp32"],
    reduce=["P"],
)

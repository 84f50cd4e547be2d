"""CUDA C Box-Muller transform: two independent standard normals from two uniforms u1 in (0, 1], u2 in [0, 1):

    rho = sqrt(-2 ln u1),   z0 = rho * cos(2 pi u2),   z1 = rho * sin(2 pi u2)

(sincospif keeps the angle exact: 2 u2 is exact in float). Grid-stride loop, launches of at most 2**30 pairs (int
counts)."""

import math

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void box_muller(const float* __restrict__ u1, const float* __restrict__ u2,
                                      float* __restrict__ z0, float* __restrict__ z1, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float rho = sqrtf(-2.0f * logf(u1[i]));
        float s, c;
        sincospif(2.0f * u2[i], &s, &c);
        z0[i] = rho * c;
        z1[i] = rho * s;
    }
}
"""

CHUNK = 1 << 30
box_muller_kernel = kcheck.CudaKernel(SOURCE, "box_muller",
                                      grid=lambda u1, u2, z0, z1, n: (min((n + 255) // 256, 8192),), block=(256,))


def box_muller(u1: torch.Tensor, u2: torch.Tensor, z0: torch.Tensor, z1: torch.Tensor) -> None:
    u1, u2 = u1.contiguous(), u2.contiguous()
    n = u1.numel()
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        box_muller_kernel(u1[start:stop], u2[start:stop], z0[start:stop], z1[start:stop], stop - start)


def reference(u1: torch.Tensor, u2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rho = torch.sqrt(-2.0 * torch.log(u1))
    return rho * torch.cos(2.0 * math.pi * u2), rho * torch.sin(2.0 * math.pi * u2)


def uniform_open_zero(ctx: kcheck.CaseContext) -> torch.Tensor:
    """u1 in (0, 1]: 1 - U[0, 1)."""
    return 1.0 - ctx.rand(ctx.dims["N"], dtype=torch.float32)


def uniform(ctx: kcheck.CaseContext) -> torch.Tensor:
    return ctx.rand(ctx.dims["N"], dtype=torch.float32)


spec = kcheck.Spec(
    name="hx30_cuda_box_muller_ok",
    kernel=box_muller,
    reference=reference,
    inputs=[kcheck.Custom(uniform_open_zero, name="u1", dims=("N",)), kcheck.Custom(uniform, name="u2", dims=("N",))],
    outputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=8192)},
    dtypes=["fp32"],
)

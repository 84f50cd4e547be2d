"""CUDA C: inertia tensor of point-mass bodies about the origin (rigid-body physics / robotics), one block of 256
threads per body of N points:

Ixx = sum m (y^2 + z^2), Iyy = sum m (x^2 + z^2), Izz = sum m (x^2 + y^2), Ixy = -sum m x y, Ixz = -sum m x z,
Iyz = -sum m y z,  output [B, 6] in that order.

Each thread accumulates six strided partial sums in fp32, then a shared-memory tree reduction over the block with
a barrier after every halving step. size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = 'divergent-barrier'

SOURCE = r"""
extern "C" __global__ void inertia(const float* __restrict__ pos, const float* __restrict__ mass,
                                   float* __restrict__ out, int n) {
    __shared__ float acc[6][256];
    const int b = blockIdx.x, t = threadIdx.x;
    const float* p = pos + (size_t)b * n * 3;
    const float* m = mass + (size_t)b * n;
    float s[6] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int i = t; i < n; i += blockDim.x) {
        float x = p[3 * (size_t)i], y = p[3 * (size_t)i + 1], z = p[3 * (size_t)i + 2], mi = m[i];
        s[0] += mi * (y * y + z * z);
        s[1] += mi * (x * x + z * z);
        s[2] += mi * (x * x + y * y);
        s[3] -= mi * x * y;
        s[4] -= mi * x * z;
        s[5] -= mi * y * z;
    }
    for (int k = 0; k < 6; ++k) acc[k][t] = s[k];
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h) {
            for (int k = 0; k < 6; ++k) acc[k][t] += acc[k][t + h];
            __syncthreads();
        }
    }
    if (t < 6) out[(size_t)b * 6 + t] = acc[t][0];
}
"""

inertia_kernel = kcheck.CudaKernel(SOURCE, "inertia", grid=lambda p, m, o, n: (o.shape[0],), block=(256,))


def inertia_tensor(pos: torch.Tensor, mass: torch.Tensor, out: torch.Tensor) -> None:
    B, n, _ = pos.shape
    if B:
        inertia_kernel(pos.contiguous(), mass.contiguous(), out, n)


def reference(pos: torch.Tensor, mass: torch.Tensor) -> torch.Tensor:
    x, y, z = pos.unbind(-1)
    m = mass
    return torch.stack([(m * (y * y + z * z)).sum(-1), (m * (x * x + z * z)).sum(-1), (m * (x * x + y * y)).sum(-1),
                        -(m * x * y).sum(-1), -(m * x * z).sum(-1), -(m * y * z).sum(-1)], dim=-1)


def masses(ctx):
    return 0.1 + ctx.rand(ctx.dims["B"], ctx.dims["N"], dtype=torch.float32)


spec = kcheck.Spec(
    name="hx27_cuda_inertia_tensor",
    kernel=inertia_tensor,
    reference=reference,
    inputs=[kcheck.Tensor("B", "N", 3, name="pos"), kcheck.Custom(masses, name="mass", dims=("B", "N"))],
    outputs=[kcheck.Tensor("B", 6)],
    dims={"B": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=1000, real=())},
    dtypes=["fp32"],
    reduce=["N"],
)

"""CUDA C horizontal strain rate magnitude of a surface current field (oceanography).

u and v are [H, W] velocity components on a square grid of spacing dx (rows i along y, columns j along x). At each
interior point, with centred differences, the normal and shear strain rates are sn = du/dx - dv/dy and
ss = dv/dx + du/dy, and the strain rate magnitude is hypot(sn, ss); the output is the [H - 2, W - 2] interior.
Blocks of 16 x 16 threads stage an 18 x 18 tile of u and of v (the block's points and their halo) in shared
memory, synchronize, and difference from there. Row tiles on grid x, size_t offsets, unit column stride.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
#define T 16
extern "C" __global__ void strain_rate(const float* __restrict__ u, const float* __restrict__ v,
                                       float* __restrict__ out, int h, int w, int ld_u, int ld_v, float inv_2dx) {
    __shared__ float su[T + 2][T + 3];
    __shared__ float sv[T + 2][T + 3];
    const int i0 = blockIdx.x * T, j0 = blockIdx.y * T;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
    for (int idx = tid; idx < (T + 2) * (T + 2); idx += T * T) {
        const int r = idx / (T + 2), c = idx % (T + 2);
        const int gi = i0 + r, gj = j0 + c;
        const bool in = gi < h && gj < w;
        su[r][c] = in ? u[(size_t)gi * (size_t)ld_u + gj] : 0.0f;
        sv[r][c] = in ? v[(size_t)gi * (size_t)ld_v + gj] : 0.0f;
    }
    __syncthreads();
    const int oi = i0 + ty, oj = j0 + tx;
    if (oi < h - 2 && oj < w - 2) {
        const float ux = (su[ty + 1][tx + 2] - su[ty + 1][tx]) * inv_2dx;
        const float uy = (su[ty + 2][tx + 1] - su[ty][tx + 1]) * inv_2dx;
        const float vx = (sv[ty + 1][tx + 2] - sv[ty + 1][tx]) * inv_2dx;
        const float vy = (sv[ty + 2][tx + 1] - sv[ty][tx + 1]) * inv_2dx;
        out[(size_t)oi * (size_t)(w - 2) + oj] = hypotf(ux - vy, vx + uy);
    }
}
"""

strain_kernel = kcheck.CudaKernel(SOURCE, "strain_rate",
                                  grid=lambda u, v, o, h, w, lu, lv, s: ((h - 2 + 15) // 16, (w - 2 + 15) // 16),
                                  block=(16, 16))


def strain_rate_magnitude(u: torch.Tensor, v: torch.Tensor, dx: float = 1000.0) -> torch.Tensor:
    h, w = u.shape
    out = torch.empty((max(h - 2, 0), max(w - 2, 0)), dtype=torch.float32, device=u.device)
    if h < 3 or w < 3:
        return out
    u = u if u.stride(1) == 1 else u.contiguous()
    v = v if v.stride(1) == 1 else v.contiguous()
    strain_kernel(u, v, out, h, w, u.stride(0), v.stride(0), 0.5 / dx)
    return out


def reference(u: torch.Tensor, v: torch.Tensor, dx: float = 1000.0) -> torch.Tensor:
    ux = (u[1:-1, 2:] - u[1:-1, :-2]) / (2 * dx)
    uy = (u[2:, 1:-1] - u[:-2, 1:-1]) / (2 * dx)
    vx = (v[1:-1, 2:] - v[1:-1, :-2]) / (2 * dx)
    vy = (v[2:, 1:-1] - v[:-2, 1:-1]) / (2 * dx)
    return torch.hypot(ux - vy, vx + uy)


spec = kcheck.Spec(
    name="hx40_cuda_strain_rate_magnitude_ok",
    kernel=strain_rate_magnitude,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="u"), kcheck.Tensor("H", "W", name="v")],
    dims={"H": kcheck.Dim(nominal=200, min=3), "W": kcheck.Dim(nominal=300, min=3, large=False)},
    dtypes=["fp32"],
    params={"dx": [1000.0, 250.0]},
)

"""CUDA C vorticity of a 2-D velocity field (fluid dynamics): omega = dv/dx - du/dy on a regular grid, central
differences inside and one-sided differences on the border rows and columns (numpy/torch.gradient's first-order
edges), u and v [H, W] with x along columns.

Each 16x16 block stages u and v with a one-cell halo in shared memory (an 18x18 tile per field, indices clamped to
the grid, so a border cell's missing neighbour is itself), waits for the whole tile, then differences its cell's
neighbours from the tile: (f[c+] - f[c-]) / ((c+ - c-) * dx). size_t offsets."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"
DX = 0.5
DY = 0.25

SOURCE = r"""
#define TS 16
extern "C" __global__ void vorticity(const float* __restrict__ u, const float* __restrict__ v,
                                     float* __restrict__ w, int h, int wd, float inv_dx, float inv_dy) {
    __shared__ float su[TS + 2][TS + 2];
    __shared__ float sv[TS + 2][TS + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col0 = blockIdx.x * TS, row0 = blockIdx.y * TS;
    const int col = col0 + tx, row = row0 + ty;
    for (int i = ty; i < TS + 2; i += TS) {
        for (int j = tx; j < TS + 2; j += TS) {
            const int r = min(max(row0 + i - 1, 0), h - 1);
            const int c = min(max(col0 + j - 1, 0), wd - 1);
            const size_t k = (size_t)r * wd + c;
            su[i][j] = u[k];
            sv[i][j] = v[k];
        }
    }
    if (row < h && col < wd) {
        const int cp = min(col + 1, wd - 1), cm = max(col - 1, 0);
        const int rp = min(row + 1, h - 1), rm = max(row - 1, 0);
        const float dvdx = (sv[ty + 1][tx + 2] - sv[ty + 1][tx]) * inv_dx / (float)(cp - cm);
        const float dudy = (su[ty + 2][tx + 1] - su[ty][tx + 1]) * inv_dy / (float)(rp - rm);
        w[(size_t)row * wd + col] = dvdx - dudy;
    }
}
"""

vorticity_kernel = kcheck.CudaKernel(SOURCE, "vorticity", grid=lambda u, v, w, h, wd, ix, iy: ((wd + 15) // 16,
                                                                                              (h + 15) // 16),
                                     block=(16, 16))


def vorticity(u: torch.Tensor, v: torch.Tensor, out: torch.Tensor) -> None:
    h, wd = u.shape
    if h and wd:
        vorticity_kernel(u.contiguous(), v.contiguous(), out, h, wd, 1.0 / DX, 1.0 / DY)


def reference(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    (dvdx,) = torch.gradient(v, spacing=DX, dim=1, edge_order=1)
    (dudy,) = torch.gradient(u, spacing=DY, dim=0, edge_order=1)
    return dvdx - dudy


spec = kcheck.Spec(
    name="cuda_vorticity_2d",
    kernel=vorticity,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="u"), kcheck.Tensor("H", "W", name="v")],
    outputs=[kcheck.Tensor("H", "W", name="omega")],
    # a difference needs two cells per axis; row tiles are grid.y (at most 65535 blocks): H stays out of the
    # past-2**31 case
    dims={"H": kcheck.Dim(nominal=96, min=2, large=False), "W": kcheck.Dim(nominal=200, min=2)},
    dtypes=["fp32"],
)

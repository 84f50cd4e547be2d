"""CUDA C voxelization of a point cloud: the number of points in each voxel of a G x G x G grid of cubic voxels of
side h centred on the origin (occupancy grids for LiDAR, density features for point-cloud networks). Point p falls
in voxel (floor(p_x / h) + G/2, floor(p_y / h) + G/2, floor(p_z / h) + G/2); points outside the grid (and NaN
coordinates) are dropped. h is a power of two, so p / h and the voxel index are exact.

One thread per point, 256 per block, each adding 1 to its voxel's count with atomicAdd (the launcher zeroes the
grid first). The bounds are tested on the float indices before any conversion to int. fp32 counts [z, y, x],
size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void voxel_point_count(const float* __restrict__ pts, float* __restrict__ count, int n_points,
                                             int g, float inv_h) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_points) return;
    const float half = (float)(g / 2);
    const float fx = floorf(pts[(size_t)i * 3 + 0] * inv_h) + half;
    const float fy = floorf(pts[(size_t)i * 3 + 1] * inv_h) + half;
    const float fz = floorf(pts[(size_t)i * 3 + 2] * inv_h) + half;
    const float top = (float)g;
    if (fx < top && fy < top && fz < top) {
        const size_t cell = ((size_t)(int)fz * g + (size_t)(int)fy) * g + (size_t)(int)fx;
        atomicAdd(&count[cell], 1.0f);
    }
}
"""

voxel_kernel = kcheck.CudaKernel(SOURCE, "voxel_point_count",
                                 grid=lambda pts, count, n, g, inv_h: ((n + 255) // 256,), block=(256,))


def voxel_point_count(points: torch.Tensor, h: float, g: int, count: torch.Tensor) -> None:
    count.zero_()
    n = points.shape[0]
    if n:
        voxel_kernel(points.contiguous(), count, n, g, 1.0 / h)


def reference(points: torch.Tensor, h: float, g: int) -> torch.Tensor:
    idx = torch.floor(points / h) + g // 2  # [P, 3] as (x, y, z)
    inside = ((idx >= 0) & (idx < g)).all(-1)
    idx = idx[inside].long()
    flat = (idx[:, 2] * g + idx[:, 1]) * g + idx[:, 0]
    count = torch.zeros(g * g * g, dtype=points.dtype, device=points.device)
    count.index_add_(0, flat, torch.ones_like(flat, dtype=points.dtype))
    return count.reshape(g, g, g)


spec = kcheck.Spec(
    name="hx32_cuda_voxel_point_count",
    kernel=voxel_point_count,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="points"), kcheck.Scalar(0.25, name="voxel_size"),
            kcheck.Scalar(lambda d: d["G"], name="grid")],
    outputs=[kcheck.Tensor("G", "G", "G")],
    dims={"P": kcheck.Dim(nominal=4096), "G": kcheck.Dim(nominal=16, multiple_of=2, max=256, large=False)},
    dtypes=["fp32"],
)

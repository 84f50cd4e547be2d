"""CUDA C occupancy-grid update in log-odds form (robot mapping): each cell's log-odds L is moved by the sensor
model's log-odds z for this scan minus the prior's l0, then clamped to [l_min, l_max] so that the map can still
change its mind: out = clamp(L + z - l0, l_min, l_max). Flat maps [N]. Two kernels: a float4 one (4 cells per
thread) used when N is a multiple of 4 and every tensor's address is 16-byte aligned, and a scalar one otherwise.
Grid-stride loops, size_t indices, launches of at most 2**30 cells; fp32. l0, l_min and l_max are modes."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float update_cell(float l, float z, float l0, float lo, float hi) {
    return fminf(fmaxf(l + z - l0, lo), hi);
}

extern "C" __global__ void logodds_update_vec4(const float4* __restrict__ l, const float4* __restrict__ z,
                                               float4* __restrict__ out, int n4, float l0, float lo, float hi) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n4; i += (size_t)gridDim.x * blockDim.x) {
        const float4 a = l[i], b = z[i];
        float4 r;
        r.x = update_cell(a.x, b.x, l0, lo, hi);
        r.y = update_cell(a.y, b.y, l0, lo, hi);
        r.z = update_cell(a.z, b.z, l0, lo, hi);
        r.w = update_cell(a.w, b.w, l0, lo, hi);
        out[i] = r;
    }
}

extern "C" __global__ void logodds_update(const float* __restrict__ l, const float* __restrict__ z,
                                          float* __restrict__ out, int n, float l0, float lo, float hi) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x) {
        out[i] = update_cell(l[i], z[i], l0, lo, hi);
    }
}
"""

BLOCK = 256
MAX_BLOCKS = 65536
CHUNK = 2 ** 30  # cells per launch: counts stay 32-bit ints, chunk starts stay 16-byte aligned


def _grid(l, z, out, n, l0, lo, hi):
    return (max(1, min(MAX_BLOCKS, (n + BLOCK - 1) // BLOCK)),)


update_vec4 = kcheck.CudaKernel(SOURCE, "logodds_update_vec4", grid=_grid, block=(BLOCK,))
update_scalar = kcheck.CudaKernel(SOURCE, "logodds_update", grid=_grid, block=(BLOCK,))


def logodds_update(logodds, scan, out, l0=0.0, l_min=-4.0, l_max=4.0):
    n = logodds.numel()
    if n == 0:
        return
    logodds, scan = logodds.contiguous(), scan.contiguous()
    for start in range(0, n, CHUNK):
        end = min(n, start + CHUNK)
        l, z, o = logodds[start:end], scan[start:end], out[start:end]
        aligned = o.data_ptr() % 16 == 0
        if (end - start) % 4 == 0 and aligned:
            update_vec4(l, z, o, (end - start) // 4, float(l0), float(l_min), float(l_max))
        else:
            update_scalar(l, z, o, end - start, float(l0), float(l_min), float(l_max))


def reference(logodds, scan, l0=0.0, l_min=-4.0, l_max=4.0):
    v = logodds + scan - l0
    v = torch.where(v.isnan(), torch.full_like(v, l_min), v)  # fmaxf(NaN, lo) = lo
    return v.clamp(l_min, l_max)


spec = kcheck.Spec(
    name="hx25_cuda_occupancy_logodds",
    kernel=logodds_update,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="logodds"), kcheck.Tensor("N", name="scan")],
    outputs=[kcheck.Tensor("N", name="out")],
    params={"l0": [0.0, 0.4], "l_min": [-4.0], "l_max": [4.0, 3.5]},
    dims={"N": kcheck.Dim(nominal=65536)},
    dtypes=["fp32"],
)

"""CUDA C missing transverse momentum of collision events (particle physics).

px and py are [E, P]: the transverse momentum components of the P reconstructed particles of each of E events
(zero-padded). The missing transverse momentum is the magnitude of minus their vector sum,
MET[e] = hypot(sum_p px[e, p], sum_p py[e, p]). One block of 256 threads per event: strided partial sums per
thread, a warp-shuffle reduction, one partial per warp in shared memory, a barrier, and the first warp reduces the
eight warp partials; fp32 sums, size_t row offsets.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

extern "C" __global__ void met(const float* __restrict__ px, const float* __restrict__ py, float* __restrict__ out,
                               int e, int p, int ld_x, int ld_y) {
    __shared__ float bx[8];
    __shared__ float by[8];
    const int row = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const float* xr = px + (size_t)row * (size_t)ld_x;
    const float* yr = py + (size_t)row * (size_t)ld_y;
    float sx = 0.0f, sy = 0.0f;
    for (int j = tid; j < p; j += blockDim.x) {
        sx += xr[j];
        sy += yr[j];
    }
    sx = warp_sum(sx);
    sy = warp_sum(sy);
    if (lane == 0) {
        bx[warp] = sx;
        by[warp] = sy;
        __syncthreads();
    }
    if (warp == 0) {
        sx = (lane < (int)(blockDim.x >> 5)) ? bx[lane] : 0.0f;
        sy = (lane < (int)(blockDim.x >> 5)) ? by[lane] : 0.0f;
        sx = warp_sum(sx);
        sy = warp_sum(sy);
        if (lane == 0) out[row] = hypotf(sx, sy);
    }
}
"""

met_kernel = kcheck.CudaKernel(SOURCE, "met", grid=lambda px, py, out, e, p, lx, ly: (e,), block=(256,))


def missing_transverse_energy(px: torch.Tensor, py: torch.Tensor, out: torch.Tensor) -> None:
    e, p = px.shape
    if e == 0:
        return
    if p == 0:
        out.zero_()
        return
    if px.stride(1) != 1:
        px = px.contiguous()
    if py.stride(1) != 1:
        py = py.contiguous()
    met_kernel(px, py, out, e, p, px.stride(0), py.stride(0))


def reference(px: torch.Tensor, py: torch.Tensor) -> torch.Tensor:
    return torch.hypot(px.sum(-1), py.sum(-1))


spec = kcheck.Spec(
    name="hx40_cuda_missing_transverse_energy",
    kernel=missing_transverse_energy,
    reference=reference,
    inputs=[kcheck.Tensor("E", "P", name="px"), kcheck.Tensor("E", "P", name="py")],
    outputs=[kcheck.Tensor("E")],
    dims={"E": kcheck.Dim(nominal=256), "P": kcheck.Dim(nominal=300)},
    dtypes=["fp32"],
    reduce=["P"],
)

"""CUDA C Cauchy (Lorentzian) robust regression loss, summed per sample row.

    loss[m] = sum_n c^2 / 2 * log(1 + ((pred[m, n] - target[m, n]) / c)^2),   c = SCALE

One block of 256 threads per row: strided per-thread fp32 partial sums, a warp-shuffle reduction inside each warp,
the eight warp sums through shared memory, and a last shuffle reduction in the first warp. size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SCALE = 2.0

SOURCE = r"""
extern "C" __global__ void cauchy_loss_rows(const float* __restrict__ pred, const float* __restrict__ target,
                                            float* __restrict__ out, int n, float inv_c, float half_c2) {
    __shared__ float warp_sums[32];
    const size_t row = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const float* p = pred + row * (size_t)n;
    const float* t = target + row * (size_t)n;
    float acc = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const float r = (p[j] - t[j]) * inv_c;
        acc += log1pf(r * r);
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) { warp_sums[warp] = acc; __syncthreads(); }
    if (warp == 0) {
        float v = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) out[row] = half_c2 * v;
    }
}
"""

cauchy_kernel = kcheck.CudaKernel(SOURCE, "cauchy_loss_rows", grid=lambda p, t, out, n, ic, hc: (p.shape[0],),
                                  block=(256,))


def cauchy_loss_rows(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    M, N = pred.shape
    out = torch.empty((M,), dtype=pred.dtype, device=pred.device)
    if M:
        cauchy_kernel(pred.contiguous(), target.contiguous(), out, N, 1.0 / SCALE, 0.5 * SCALE * SCALE)
    return out


def reference(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    r = (pred - target) / SCALE
    return (0.5 * SCALE * SCALE * torch.log1p(r * r)).sum(-1)


spec = kcheck.Spec(
    name="hx22_cuda_cauchy_loss_rows",
    kernel=cauchy_loss_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=777, real=(4096,))},
    dtypes=["fp32"],
    reduce=["N"],
)

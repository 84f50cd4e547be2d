"""CUDA C per-token symmetric int4 fake quantization (quantization-aware training, activations): per row,

    s = max(|x|) / 7,   out = clamp(round(x / s), -8, 7) * s,   and out = 0 for an all-zero row

(round half to even, as torch.round). Blocks of 32 x 8 threads take 8 rows, one warp per row: each lane keeps a
strided running max of |x|, the warp combines them through shared memory in a tree with __syncthreads() between
steps, then the warp quantizes its row. size_t offsets.
"""

import torch

import kcheck

SOURCE = r"""
#define ROWS 8
extern "C" __global__ void int4_fakequant_rows(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float red[ROWS][32];
    const int lane = threadIdx.x, r = threadIdx.y;
    const int row = blockIdx.x * ROWS + r;
    if (row >= m) return;
    const float* xr = x + (size_t)row * (size_t)n;
    float amax = 0.0f;
    for (int j = lane; j < n; j += 32) amax = fmaxf(amax, fabsf(xr[j]));
    red[r][lane] = amax;
    __syncthreads();
    for (int s = 16; s > 0; s >>= 1) {
        if (lane < s) red[r][lane] = fmaxf(red[r][lane], red[r][lane + s]);
        __syncthreads();
    }
    const float scale = red[r][0] / 7.0f;
    float* orow = out + (size_t)row * (size_t)n;
    for (int j = lane; j < n; j += 32) {
        float q = scale > 0.0f ? fminf(fmaxf(rintf(xr[j] / scale), -8.0f), 7.0f) * scale : 0.0f;
        orow[j] = q;
    }
}
"""

fakequant_kernel = kcheck.CudaKernel(SOURCE, "int4_fakequant_rows",
                                     grid=lambda x, out, m, n: ((m + 7) // 8,), block=(32, 8))


def int4_fakequant(x, out):
    m, n = x.shape
    if m and n:
        fakequant_kernel(x.contiguous(), out, m, n)


def reference(x):
    scale = x.abs().amax(-1, keepdim=True) / 7
    q = torch.clamp(torch.round(x / torch.where(scale > 0, scale, torch.ones_like(scale))), -8, 7) * scale
    return torch.where(scale > 0, q, torch.zeros_like(q))


BUG_CLASS = "divergent-barrier"

spec = kcheck.Spec(
    name="hx18_cuda_row_int4_fakequant",
    kernel=int4_fakequant,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=100), "N": kcheck.Dim(nominal=512)},
    dtypes=["fp32"],
)

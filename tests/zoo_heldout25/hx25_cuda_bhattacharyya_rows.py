"""CUDA C Bhattacharyya coefficient and Hellinger distance between pairs of histograms (tracking, image
retrieval): for rows p, q of [M, K] non-negative histograms, BC = sum_k sqrt(p_k q_k) / sqrt(sum p * sum q)
(0 when either histogram is empty) and H = sqrt(max(1 - BC, 0)). Blocks of 64x4 threads handle four rows, 64
threads per row: strided partial sums of sqrt(p q), p and q in registers, then a tree reduction in shared memory
with a __syncthreads() after every step, reached by every thread of the block (rows past the end contribute
zeros). size_t offsets; fp32."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define TPR 64
#define RPB 4
extern "C" __global__ void bhattacharyya_rows(const float* __restrict__ p, const float* __restrict__ q,
                                              float* __restrict__ bc, float* __restrict__ hell, int m, int k) {
    __shared__ float s_pq[RPB][TPR];
    __shared__ float s_p[RPB][TPR];
    __shared__ float s_q[RPB][TPR];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.x * RPB + ty;
    float apq = 0.0f, ap = 0.0f, aq = 0.0f;
    if (row < m) {
        const float* pr = p + (size_t)row * k;
        const float* qr = q + (size_t)row * k;
        for (int j = tx; j < k; j += TPR) {
            const float a = pr[j], b = qr[j];
            apq += sqrtf(a * b);
            ap += a;
            aq += b;
        }
    }
    s_pq[ty][tx] = apq;
    s_p[ty][tx] = ap;
    s_q[ty][tx] = aq;
    __syncthreads();
    for (int s = TPR / 2; s > 0; s >>= 1) {
        if (tx < s) {
            s_pq[ty][tx] += s_pq[ty][tx + s];
            s_p[ty][tx] += s_p[ty][tx + s];
            s_q[ty][tx] += s_q[ty][tx + s];
            __syncthreads();
        }
    }
    if (row < m && tx == 0) {
        const float norm = s_p[ty][0] * s_q[ty][0];
        const float c = norm > 0.0f ? s_pq[ty][0] / sqrtf(norm) : 0.0f;
        bc[row] = c;
        hell[row] = sqrtf(fmaxf(1.0f - c, 0.0f));
    }
}
"""

bhattacharyya_kernel = kcheck.CudaKernel(SOURCE, "bhattacharyya_rows", grid=lambda p, q, bc, hl, m, k: ((m + 3) // 4,),
                                         block=(64, 4))


def bhattacharyya(p, q, bc, hell):
    m, k = p.shape
    if m:
        bhattacharyya_kernel(p.contiguous(), q.contiguous(), bc, hell, m, k)


def histogram(ctx):
    """Non-negative histograms: uniform counts, whole rows of zeros in the `zeros` pattern and every fifth row
    empty in the `constant` pattern."""
    M, K = ctx.dims["M"], ctx.dims["K"]
    h = torch.rand((M, K), generator=ctx.generator)
    if ctx.pattern == "zeros":
        h.zero_()
    elif ctx.pattern == "constant":
        h[::5] = 0.0
    elif ctx.pattern == "large":
        h *= 1000.0
    return h.to(ctx.dtype).to(ctx.device)


def reference(p, q):
    num = torch.sqrt(p * q).sum(-1)
    norm = p.sum(-1) * q.sum(-1)
    bc = torch.where(norm > 0, num / torch.sqrt(norm), torch.zeros_like(num))
    return bc, torch.sqrt(torch.clamp(1 - bc, min=0))


spec = kcheck.Spec(
    name="hx25_cuda_bhattacharyya_rows",
    kernel=bhattacharyya,
    reference=reference,
    inputs=[kcheck.Custom(histogram, name="p", dims=("M", "K")), kcheck.Custom(histogram, name="q", dims=("M", "K"))],
    outputs=[kcheck.Tensor("M", name="bc"), kcheck.Tensor("M", name="hellinger")],
    dims={"M": kcheck.Dim(nominal=130), "K": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
    reduce=["K"],
)

"""CUDA C intersection over union of paired axis-aligned boxes (x1, y1, x2, y2), as torchvision's box_iou
diagonal, with degenerate boxes (x2 < x1 or y2 < y1) taken as empty:

    area(b) = max(x2 - x1, 0) * max(y2 - y1, 0),   inter = max(min(ax2, bx2) - max(ax1, bx1), 0) * (same in y)
    iou = inter / (area(a) + area(b) - inter),   and 0 where that union is 0

a, b: (N, 4) boxes, out: (N,). One thread per pair, size_t indices.
"""

import torch

import kcheck

SOURCE = r"""
/* NaN-propagating min, max and clamp at 0, as torch.minimum / torch.maximum / clamp(min=0) */
__device__ __forceinline__ float nmin(float u, float v) { return (u != u || v != v) ? u + v : fminf(u, v); }
__device__ __forceinline__ float nmax(float u, float v) { return (u != u || v != v) ? u + v : fmaxf(u, v); }
__device__ __forceinline__ float pos(float u) { return u < 0.0f ? 0.0f : u; }

extern "C" __global__ void paired_box_iou(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ out, long long n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    const float* p = a + 4 * i;
    const float* q = b + 4 * i;
    float area_a = pos(p[2] - p[0]) * pos(p[3] - p[1]);
    float area_b = pos(q[2] - q[0]) * pos(q[3] - q[1]);
    float iw = pos(nmin(p[2], q[2]) - nmax(p[0], q[0]));
    float ih = pos(nmin(p[3], q[3]) - nmax(p[1], q[1]));
    float inter = iw * ih;
    float uni = area_a + area_b - inter;
    out[i] = uni > 0.0f ? inter / uni : 0.0f;
}
"""

iou_kernel = kcheck.CudaKernel(SOURCE, "paired_box_iou", grid=lambda a, b, out, n: ((n + 255) // 256,),
                               block=(256,))


def paired_iou(a, b, out):
    n = a.shape[0]
    if n:
        iou_kernel(a.contiguous(), b.contiguous(), out, n)


def reference(a, b):
    area_a = (a[:, 2] - a[:, 0]).clamp(min=0) * (a[:, 3] - a[:, 1]).clamp(min=0)
    area_b = (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)
    iw = (torch.minimum(a[:, 2], b[:, 2]) - torch.maximum(a[:, 0], b[:, 0])).clamp(min=0)
    ih = (torch.minimum(a[:, 3], b[:, 3]) - torch.maximum(a[:, 1], b[:, 1])).clamp(min=0)
    inter = iw * ih
    union = area_a + area_b - inter
    return torch.where(union > 0, inter / torch.where(union > 0, union, torch.ones_like(union)),
                       torch.zeros_like(union))


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx18_cuda_bbox_iou_ok",
    kernel=paired_iou,
    reference=reference,
    inputs=[kcheck.Tensor("N", 4, name="boxes_a"), kcheck.Tensor("N", 4, name="boxes_b")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

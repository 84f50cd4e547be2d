"""Per-class feature centroids for center loss / prototype classifiers (metric learning).

feats [B, D] with labels [B] in [0, C): out[c] = mean of the rows labelled c (0 for a class with no row). Two
kernels: the first adds each row into its class's fp32 sum with atomics (and counts it once), the second divides
each class's sum by max(count, 1).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def class_sum_kernel(x_ptr, lab_ptr, sum_ptr, cnt_ptr, D, stride_xb, stride_xd, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    pid_d = tl.program_id(1)
    cols = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < D
    c = tl.load(lab_ptr + b).to(tl.int64)
    x = tl.load(x_ptr + b * stride_xb + cols * stride_xd, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(sum_ptr + c * D + cols, x, mask=mask)
    if pid_d == 0:
        tl.atomic_add(cnt_ptr + c, 1.0)


@triton.jit
def class_mean_kernel(sum_ptr, cnt_ptr, out_ptr, D, stride_oc, stride_od, BLOCK_D: tl.constexpr):
    c = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < D
    s = tl.load(sum_ptr + c * D + cols, mask=mask, other=0.0)
    n = tl.maximum(tl.load(cnt_ptr + c), 1.0)
    tl.store(out_ptr + c * stride_oc + cols * stride_od, (s / n).to(out_ptr.dtype.element_ty), mask=mask)


def class_centroids(feats, labels, num_classes, BLOCK_D=64):
    B, D = feats.shape
    C = num_classes
    out = torch.empty((C, D), dtype=feats.dtype, device=feats.device)
    if C == 0 or D == 0:
        return out
    sums = torch.empty((C, D), dtype=torch.float32, device=feats.device)
    counts = torch.zeros((C,), dtype=torch.float32, device=feats.device)
    if B:
        class_sum_kernel[(B, triton.cdiv(D, BLOCK_D))](feats, labels, sums, counts, D, feats.stride(0),
                                                        feats.stride(1), BLOCK_D=BLOCK_D)
    class_mean_kernel[(C, triton.cdiv(D, BLOCK_D))](sums, counts, out, D, out.stride(0), out.stride(1),
                                                     BLOCK_D=BLOCK_D)
    return out


def reference(feats, labels, num_classes):
    D = feats.shape[1]
    sums = torch.zeros((num_classes, D), dtype=feats.dtype, device=feats.device).index_add_(0, labels, feats)
    counts = torch.bincount(labels, minlength=num_classes).to(feats.dtype).clamp_min(1.0)
    return sums / counts[:, None]


spec = kcheck.Spec(
    name="hx17_class_centroid_sum",
    kernel=class_centroids,
    reference=reference,
    inputs=[kcheck.Tensor("B", "D", name="feats"), kcheck.Index("B", high="C", name="labels"),
            kcheck.Scalar(lambda d: d["C"], name="num_classes")],
    dims={"B": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=64), "C": kcheck.Dim(nominal=10, max=1024)},
    output_shapes=[("C", "D")],
    configs=[{"BLOCK_D": 64}, {"BLOCK_D": 32}],
)

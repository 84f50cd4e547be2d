"""Confusion matrix for segmentation / classification evaluation (the counts behind mIoU): cm[label, pred] is the
number of positions with that label and that prediction, over N flattened positions and C classes. A 1-D grid
over the positions; each program adds its counts into an int32 (C, C) table, returned as int64."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def confusion_kernel(label_ptr, pred_ptr, cm_ptr, N, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    lab = tl.load(label_ptr + offs, mask=mask, other=0).to(tl.int64)
    prd = tl.load(pred_ptr + offs, mask=mask, other=0).to(tl.int64)
    cell = lab * C + prd
    count = tl.load(cm_ptr + cell, mask=mask, other=0)
    tl.store(cm_ptr + cell, count + 1, mask=mask)


def confusion_matrix(labels: torch.Tensor, preds: torch.Tensor, num_classes: torch.Tensor,
                     BLOCK: int = 1024) -> torch.Tensor:
    C = num_classes.shape[0]
    N = labels.shape[0]
    cm = torch.zeros((C, C), dtype=torch.int32, device=labels.device)
    if N:
        confusion_kernel[(triton.cdiv(N, BLOCK),)](labels, preds, cm, N, C, BLOCK=BLOCK)
    return cm.to(torch.int64)


def reference(labels: torch.Tensor, preds: torch.Tensor, num_classes: torch.Tensor) -> torch.Tensor:
    C = num_classes.shape[0]
    return torch.bincount(labels * C + preds, minlength=C * C).reshape(C, C)


spec = kcheck.Spec(
    name="hx16_confusion_matrix",
    kernel=confusion_matrix,
    reference=reference,
    inputs=[kcheck.Index("N", high="C", name="labels"), kcheck.Index("N", high="C", name="preds"),
            kcheck.Custom(lambda ctx: torch.ones(ctx.dims["C"], device=ctx.device), name="classes", dims=("C",))],
    dims={"N": kcheck.Dim(nominal=4096), "C": kcheck.Dim(nominal=19, max=150, real=(21, 150))},
    dtypes=["fp32"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

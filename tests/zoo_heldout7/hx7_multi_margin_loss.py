"""Multi-class margin (hinge) loss per sample, as torch.nn.MultiMarginLoss with p=1, margin=1 and no weights:

    loss[i] = sum_{j != y[i]} max(0, margin - x[i, y[i]] + x[i, j]) / C

One program per row; the row is read in BLOCK_C-wide chunks, the target logit is gathered once, and the hinge
terms are summed in fp32, the target column left out."""

import torch
import triton
import triton.language as tl

import kcheck

MARGIN = 1.0


@triton.jit
def multi_margin_kernel(x_ptr, y_ptr, out_ptr, C, stride_xm, margin,
                        BLOCK_C: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    target = tl.load(y_ptr + row)
    x_y = tl.load(x_row + target).to(tl.float32)
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)
    for start in range(0, C, BLOCK_C):
        cols = start + tl.arange(0, BLOCK_C)
        mask = cols <= C
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        h = tl.maximum(margin - x_y + x, 0.0)
        acc += tl.where(mask & (cols != target), h, 0.0)
    loss = tl.sum(acc, axis=0) / C
    tl.store(out_ptr + row, loss.to(out_ptr.dtype.element_ty))


def multi_margin_loss(x, y, BLOCK_C=256):
    M, C = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if x.stride(1) != 1:
        x = x.contiguous()
    block = min(BLOCK_C, triton.next_power_of_2(C))
    multi_margin_kernel[(M,)](x, y, out, C, x.stride(0), MARGIN, BLOCK_C=block)
    return out


def reference(x, y):
    return torch.nn.functional.multi_margin_loss(x, y, p=1, margin=MARGIN, reduction="none")


spec = kcheck.Spec(
    name="hx7_multi_margin_loss",
    kernel=multi_margin_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="logits"), kcheck.Index("M", high="C", name="target")],
    dims={"M": kcheck.Dim(nominal=64), "C": kcheck.Dim(nominal=512, min=1)},
    reduce=["C"],
    configs=[{"BLOCK_C": 256}, {"BLOCK_C": 64}],
)

BUG_CLASS = "off-by-one-mask"

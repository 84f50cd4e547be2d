"""Triplet margin loss per sample, as torch.nn.functional.triplet_margin_loss(p=2, reduction="none"):

    loss[i] = max(||a_i - p_i + eps||_2 - ||a_i - n_i + eps||_2 + margin, 0)

One program per row. Both squared distances are accumulated lane-wise over BLOCK_D-wide chunks of the embedding,
then reduced across lanes; the distances and the hinge are taken in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

MARGIN, EPS = 1.0, 1e-6


@triton.jit
def triplet_kernel(a_ptr, p_ptr, n_ptr, out_ptr, D, stride_a, stride_p, stride_n, margin, eps,
                   BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc_p = tl.zeros([BLOCK_D], dtype=a_ptr.dtype.element_ty)
    acc_n = tl.zeros([BLOCK_D], dtype=a_ptr.dtype.element_ty)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = cols < D
        a = tl.load(a_ptr + row * stride_a + cols, mask=mask, other=0.0)
        p = tl.load(p_ptr + row * stride_p + cols, mask=mask, other=0.0)
        n = tl.load(n_ptr + row * stride_n + cols, mask=mask, other=0.0)
        dp = tl.where(mask, a - p + eps, 0.0)
        dn = tl.where(mask, a - n + eps, 0.0)
        acc_p += dp * dp
        acc_n += dn * dn
    d_pos = tl.sqrt(tl.sum(acc_p, axis=0).to(tl.float32))
    d_neg = tl.sqrt(tl.sum(acc_n, axis=0).to(tl.float32))
    h = d_pos - d_neg + margin
    loss = tl.where(h < 0.0, 0.0, h)  # NaN propagates, as clamp_min
    tl.store(out_ptr + row, loss.to(out_ptr.dtype.element_ty))


def triplet_margin_loss(anchor, positive, negative, BLOCK_D=128):
    M, D = anchor.shape
    out = torch.empty(M, dtype=anchor.dtype, device=anchor.device)
    if M == 0:
        return out
    anchor, positive, negative = (t if t.stride(1) == 1 else t.contiguous() for t in (anchor, positive, negative))
    triplet_kernel[(M,)](anchor, positive, negative, out, D, anchor.stride(0), positive.stride(0),
                         negative.stride(0), MARGIN, EPS, BLOCK_D=BLOCK_D)
    return out


def reference(anchor, positive, negative):
    return torch.nn.functional.triplet_margin_loss(anchor, positive, negative, margin=MARGIN, p=2, eps=EPS,
                                                   reduction="none")


spec = kcheck.Spec(
    name="hx7_triplet_margin_loss",
    kernel=triplet_margin_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="anchor"), kcheck.Tensor("M", "D", name="positive"),
            kcheck.Tensor("M", "D", name="negative")],
    dims={"M": kcheck.Dim(nominal=64), "D": kcheck.Dim(nominal=256)},
    reduce=["D"],
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 512}],
)

BUG_CLASS = "low-precision-accumulation"

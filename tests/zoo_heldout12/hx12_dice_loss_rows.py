import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def dice_kernel(z_ptr, t_ptr, out_ptr, N, stride_zm, stride_zn, stride_tm, stride_tn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    inter = tl.zeros([BLOCK], dtype=tl.float32)
    denom = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, (N // BLOCK) * BLOCK, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N
        z = tl.load(z_ptr + row * stride_zm + cols * stride_zn, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + row * stride_tm + cols * stride_tn, mask=mask, other=0.0).to(tl.float32)
        p = tl.where(mask, 1.0 / (1.0 + tl.exp(-z)), 0.0)
        inter += p * t
        denom += p + t
    loss = 1.0 - (2.0 * tl.sum(inter, axis=0) + 1.0) / (tl.sum(denom, axis=0) + 1.0)
    tl.store(out_ptr + row, loss.to(out_ptr.dtype.element_ty))


def dice_loss(logits, target, BLOCK=128):
    M, N = logits.shape
    out = torch.empty((M,), dtype=logits.dtype, device=logits.device)
    if M:
        dice_kernel[(M,)](logits, target, out, N, logits.stride(0), logits.stride(1), target.stride(0),
                          target.stride(1), BLOCK=BLOCK)
    return out


def reference(logits, target):
    p = torch.sigmoid(logits)
    return 1.0 - (2.0 * (p * target).sum(-1) + 1.0) / (p.sum(-1) + target.sum(-1) + 1.0)


def soft_target(ctx):
    return ctx.rand(ctx.dims["M"], ctx.dims["N"])


spec = kcheck.Spec(
    name="hx12_dice_loss_rows",
    kernel=dice_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logits"), kcheck.Custom(soft_target, name="target", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK": 128}, {"BLOCK": 32}],
)

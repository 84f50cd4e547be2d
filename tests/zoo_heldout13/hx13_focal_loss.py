"""Elementwise binary focal loss with logits (RetinaNet), reduction='none':

    ce = max(z, 0) - z t + log(1 + exp(-|z|)),   p = sigmoid(z),   p_t = p t + (1 - p)(1 - t)
    loss = (alpha t + (1 - alpha)(1 - t)) (1 - p_t)^gamma ce,   alpha = 0.25, gamma = 2

over a flat buffer of finite logits z and {0, 1} targets t. A flat 1-D grid, fp32 math, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

ALPHA, GAMMA = 0.25, 2.0


@triton.jit
def focal_kernel(z_ptr, t_ptr, o_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    z = tl.load(z_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(-tl.abs(z))
    ce = tl.maximum(z, 0.0) - z * t + tl.log(1.0 + e)
    p = tl.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    q = 1.0 - (p * t + (1.0 - p) * (1.0 - t))
    w = alpha * t + (1.0 - alpha) * (1.0 - t)
    tl.store(o_ptr + offs, (w * q * q * ce).to(o_ptr.dtype.element_ty), mask=mask)


def focal_loss(logits: torch.Tensor, targets: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    z = logits.contiguous()
    t = targets.contiguous()
    out = torch.empty_like(z)
    n = z.numel()
    if n:
        focal_kernel[(triton.cdiv(n, BLOCK),)](z, t, out, n, ALPHA, BLOCK=BLOCK)
    return out


def targets(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (ctx.rand(ctx.dims["N"], dtype=torch.float32) < 0.3).to(ctx.dtype)


def reference(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logits)
    ce = torch.nn.functional.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    w = ALPHA * targets + (1 - ALPHA) * (1 - targets)
    return w * (1 - p_t) ** GAMMA * ce


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx13_focal_loss",
    kernel=focal_loss,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="logits"), kcheck.Custom(targets, name="targets", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=8192, real=())},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 4096}],
)

"""Elementwise Huber loss (delta = 1): d = |pred - target|, loss = 0.5 d^2 if d < 1 else d - 0.5, in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

DELTA = 1.0


@triton.jit
def huber_kernel(p_ptr, t_ptr, out_ptr, n, delta, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = tl.abs(p - t)
    loss = tl.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    tl.store(out_ptr + offs, loss.to(out_ptr.dtype.element_ty), mask=mask)


def huber_loss(pred: torch.Tensor, target: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    pred, target = pred.contiguous(), target.contiguous()
    out = torch.empty_like(pred)
    n = pred.numel()
    if n:
        huber_kernel[(triton.cdiv(n, BLOCK),)](pred, target, out, n, DELTA, BLOCK=BLOCK)
    return out


def reference(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.huber_loss(pred, target, reduction="none", delta=DELTA)


spec = kcheck.Spec(
    name="hx21_huber_loss",
    kernel=huber_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1024, max=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
BUG_CLASS = "int32-overflow"

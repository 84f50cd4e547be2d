"""Logit soft-capping in place (Gemma 2, Grok): x <- cap * tanh(x / cap), applied to a [M, N] logits buffer before
the loss. A flat 1-D kernel over a contiguous buffer; the launcher works on a contiguous copy when the caller's
tensor is strided, and returns the caller's tensor.
"""

import torch
import triton
import triton.language as tl

import kcheck

CAP = 30.0


@triton.jit
def softcap_kernel(x_ptr, n, cap, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = x / cap
    t = tl.exp(-2.0 * tl.abs(z))
    z2 = z * z
    th_small = tl.abs(z) * (1.0 - z2 * (1.0 / 3.0 - z2 * (2.0 / 15.0)))  # series: 1 - t cancels near 0
    th = tl.where(tl.abs(z) < 0.05, th_small, (1.0 - t) / (1.0 + t))
    y = cap * tl.where(z < 0, -th, th)
    tl.store(x_ptr + offs, y.to(x_ptr.dtype.element_ty), mask=mask)


def logit_softcap_(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    buf = x if x.is_contiguous() else x.contiguous()
    n = buf.numel()
    if n:
        softcap_kernel[(triton.cdiv(n, BLOCK),)](buf, n, CAP, BLOCK=BLOCK)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    return CAP * torch.tanh(x / CAP)


BUG_CLASS = "no-op"

spec = kcheck.Spec(
    name="hx13_logit_softcap",
    kernel=logit_softcap_,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logits", mutated=True)],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=512, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

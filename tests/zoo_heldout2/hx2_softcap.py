"""Attention-logit soft-capping (Gemma-style): y = cap * tanh(scores / cap), elementwise, computed and stored in fp32
by the kernel. tanh is a short odd polynomial near 0 and (1 - e) / (1 + e), e = exp(-2|u|), elsewhere."""

import torch
import triton
import triton.language as tl

import kcheck

CAP = 30.0


@triton.jit
def softcap_kernel(s_ptr, out_ptr, n, cap, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    s = tl.load(s_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = s / cap
    a = tl.abs(u)
    e = tl.exp(-2.0 * a)
    big = (1.0 - e) / (1.0 + e)
    u2 = u * u
    small = a * (1.0 + u2 * (-1.0 / 3.0 + u2 * (2.0 / 15.0 + u2 * (-17.0 / 315.0))))
    t = tl.where(a < 0.125, small, big)
    t = tl.where(u < 0, -t, t)
    tl.store(out_ptr + offs, cap * t, mask=mask)


def softcap(scores, BLOCK=1024):
    scores = scores.contiguous()
    out = torch.empty_like(scores)
    n = scores.numel()
    if n:
        softcap_kernel[(triton.cdiv(n, BLOCK),)](scores, out.float(), n, CAP, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx2_softcap",
    kernel=softcap,
    reference=lambda s: CAP * torch.tanh(s / CAP),
    inputs=[kcheck.Tensor("H", "S", "T")],
    dims={"H": kcheck.Dim(nominal=4, max=8, real=()), "S": kcheck.Dim(nominal=64),
          "T": kcheck.Dim(nominal=64, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "no-op"

"""Proximal SGD step for an L1-regularized weight (sparse linear models, pruning-aware fine-tuning), in place:

    z = w - lr * g
    w <- sign(z) * max(|z| - lr * lam, 0)          (soft thresholding)

A 1-D flat grid over the weight. The launcher works on an fp32 copy of the weight (the update is computed and rounded
once, from fp32), then writes it back into the weight in its own dtype. lr and lam are modes.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def prox_sgd_kernel(w_ptr, g_ptr, n, lr, thresh, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = w - lr * g
    mag = tl.where(tl.abs(z) > thresh, tl.abs(z) - thresh, 0.0)
    new = tl.where(z < 0, -mag, mag)
    new = tl.where(z != z, z, new)
    tl.store(w_ptr + offs, new, mask=mask)


def prox_sgd_(w, g, lr=0.1, lam=0.5, BLOCK=1024):
    n = w.numel()
    if n == 0:
        return w
    w32 = w.float()
    prox_sgd_kernel[(triton.cdiv(n, BLOCK),)](w32, g.contiguous(), n, lr, lr * lam, BLOCK=BLOCK)
    return w


def reference(w, g, lr=0.1, lam=0.5):
    z = w - lr * g
    return torch.sign(z) * torch.clamp(z.abs() - lr * lam, min=0.0)


spec = kcheck.Spec(
    name="hx15_prox_sgd_inplace",
    kernel=prox_sgd_,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="w", mutated=True), kcheck.Tensor("N", name="g")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    params={"lr": [0.1, 0.01], "lam": [0.5, 0.0]},
)

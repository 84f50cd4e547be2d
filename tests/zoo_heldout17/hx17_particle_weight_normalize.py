"""Normalisation of particle-filter importance weights (robot localisation, sequential Monte Carlo).

Weights are non-negative likelihoods given as w [N] (magnitudes: |w| is used): out = |w| / sum |w|. Two passes:
the first kernel reduces each block of BLOCK weights and adds its partial sum into a one-element fp32 total with
an atomic; the second divides every weight by the total.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def weight_sum_kernel(w_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    w = tl.abs(tl.load(w_ptr + offs, mask=offs < n, other=0.0).to(tl.float32))
    tl.atomic_add(total_ptr, tl.sum(w, axis=0))


@triton.jit
def weight_scale_kernel(w_ptr, total_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w = tl.abs(tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32))
    tl.atomic_add(total_ptr, tl.sum(w, axis=0))
    total = tl.load(total_ptr)
    tl.store(out_ptr + offs, (w / total).to(out_ptr.dtype.element_ty), mask=mask)


def normalize_weights(w, BLOCK=256):
    w = w.contiguous()
    n = w.numel()
    out = torch.empty_like(w)
    if n:
        total = torch.zeros((1,), dtype=torch.float32, device=w.device)
        grid = (triton.cdiv(n, BLOCK),)
        weight_scale_kernel[grid](w, total, out, n, BLOCK=BLOCK)
    return out


def reference(w):
    a = w.abs()
    return a / a.sum()


spec = kcheck.Spec(
    name="hx17_particle_weight_normalize",
    kernel=normalize_weights,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=8192)},
    patterns=["randn", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 1024}],
)

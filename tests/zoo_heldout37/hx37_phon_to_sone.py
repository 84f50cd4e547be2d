"""Loudness level (phon) to loudness (sone), band by band (psychoacoustics, ISO 532 / Zwicker): for a [frames,
bands] array of loudness levels P,

    S = 2 ** ((P - 40) / 10)      for P >= 40 phon
    S = (P / 40) ** 2.642         for 0 < P < 40
    S = 0                         for P <= 0 (below the threshold of hearing)

Elementwise over the flattened levels (made contiguous), in fp32 (both branches through exp2), rounded once into
the input dtype; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def sone_kernel(p_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    above = tl.exp2((p - 40.0) * 0.1)
    below = tl.exp2(2.642 * tl.log2(tl.maximum(p, 1e-30) * 0.025))
    s = tl.where(p >= 40.0, above, tl.where(p > 0.0, below, 0.0))
    tl.store(out_ptr + offs, s.to(out_ptr.dtype.element_ty), mask=mask)


def phon_to_sone(p: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    p = p.contiguous()
    out = torch.empty_like(p)
    n = p.numel()
    if n:
        sone_kernel[(triton.cdiv(n, BLOCK),)](p, out, n, BLOCK=BLOCK)
    return out


def reference(p: torch.Tensor) -> torch.Tensor:
    above = torch.pow(2.0, (p - 40.0) / 10.0)
    below = torch.pow(p.clamp(min=0.0) / 40.0, 2.642)
    return torch.where(p >= 40.0, above, torch.where(p > 0.0, below, torch.zeros_like(p)))


spec = kcheck.Spec(
    name="hx37_phon_to_sone",
    kernel=phon_to_sone,
    reference=reference,
    inputs=[kcheck.Tensor("F", "B", name="phon")],
    dims={"F": kcheck.Dim(nominal=400), "B": kcheck.Dim(nominal=24)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

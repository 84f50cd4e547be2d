"""Normalized difference vegetation index per pixel: ndvi = (nir - red) / (nir + red), defined as 0 where
nir + red == 0 (no signal). Elementwise over flattened bands, fp32 arithmetic, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def ndvi_kernel(nir_ptr, red_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    nir = tl.load(nir_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    red = tl.load(red_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    den = nir + red
    nonzero = den != 0.0
    ratio = (nir - red) / den
    tl.store(out_ptr + offs, ratio.to(out_ptr.dtype.element_ty), mask=mask)


def ndvi(nir: torch.Tensor, red: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    nir, red = nir.contiguous(), red.contiguous()
    out = torch.empty_like(nir)
    n = nir.numel()
    if n:
        ndvi_kernel[(triton.cdiv(n, BLOCK),)](nir, red, out, n, BLOCK=BLOCK)
    return out


def reference(nir: torch.Tensor, red: torch.Tensor) -> torch.Tensor:
    den = nir + red
    return torch.where(den != 0, (nir - red) / torch.where(den != 0, den, 1.0), 0.0)


spec = kcheck.Spec(
    name="ndvi",
    kernel=ndvi,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="nir"), kcheck.Tensor("H", "W", name="red")],
    dims={"H": kcheck.Dim(nominal=32, max=64, real=()), "W": kcheck.Dim(nominal=512, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "division-by-zero"

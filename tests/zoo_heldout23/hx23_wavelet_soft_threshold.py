"""Wavelet soft thresholding (shrinkage denoising of detail coefficients): y = sign(x) * max(|x| - t, 0), written
as y = x - clamp(x, -t, t), which is exactly 0 inside [-t, t] and keeps NaN and +-Inf.

The coefficients are processed as one flat contiguous array, BLOCK per program, the grid covering every element
(ceil division); the threshold t is a mode. fp32 arithmetic, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def soft_threshold_kernel(x_ptr, out_ptr, n, t, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x - tl.clamp(x, -t, t)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def soft_threshold(x: torch.Tensor, threshold: float = 0.5, BLOCK: int = 1024) -> torch.Tensor:
    xc = x.contiguous()
    out = torch.empty(xc.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        soft_threshold_kernel[(n // BLOCK,)](xc, out, n, threshold, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, threshold: float = 0.5) -> torch.Tensor:
    return x - x.clamp(-threshold, threshold)


BUG_CLASS = "tail-tile-dropped"

spec = kcheck.Spec(
    name="hx23_wavelet_soft_threshold",
    kernel=soft_threshold,
    reference=reference,
    inputs=[kcheck.Tensor("C", "L", name="coeffs")],
    dims={"C": kcheck.Dim(nominal=48, real=()), "L": kcheck.Dim(nominal=512, real=())},
    params={"threshold": [0.5, 2.0]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

"""Normalised rgb chromaticity of linear-light pixels: each channel's magnitude divided by the pixel's total,
(|r|, |g|, |b|) / (|r| + |g| + |b|); a black pixel (total 0) maps to (0, 0, 0).

rgb is [P, 3] (any strides); each program handles BLOCK pixels as a [BLOCK, 4] tile whose fourth column is masked
off; fp32 math, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def chromaticity_kernel(x_ptr, y_ptr, P, sxp, sxc, syp, syc, BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    c = tl.arange(0, 4).to(tl.int64)
    mask = (p < P)[:, None] & (c < 3)[None, :]
    v = tl.abs(tl.load(x_ptr + p[:, None] * sxp + c[None, :] * sxc, mask=mask, other=0.0).to(tl.float32))
    total = tl.sum(v, axis=1)
    y = v / total[:, None]
    tl.store(y_ptr + p[:, None] * syp + c[None, :] * syc, y.to(y_ptr.dtype.element_ty), mask=mask)


def chromaticity(rgb: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    P = rgb.shape[0]
    y = torch.empty((P, 3), dtype=rgb.dtype, device=rgb.device)
    if P:
        chromaticity_kernel[(triton.cdiv(P, BLOCK),)](rgb, y, P, rgb.stride(0), rgb.stride(1), y.stride(0),
                                                      y.stride(1), BLOCK=BLOCK)
    return y


def reference(rgb: torch.Tensor) -> torch.Tensor:
    v = rgb.abs()
    total = v.sum(-1, keepdim=True)
    return torch.where(total > 0, v / torch.where(total > 0, total, torch.ones_like(total)), torch.zeros_like(v))


spec = kcheck.Spec(
    name="hx19_rgb_chromaticity",
    kernel=chromaticity,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb")],
    dims={"P": kcheck.Dim(nominal=5000)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

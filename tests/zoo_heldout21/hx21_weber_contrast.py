"""Weber contrast of an image against a per-row background luminance: (I - Ib) / Ib, defined as 0 where Ib == 0.
Elementwise over a flattened [M, N] image in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def weber_kernel(x_ptr, bg_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    bg = tl.load(bg_ptr + offs // N, mask=mask, other=1.0).to(tl.float32)
    nz = bg != 0.0
    c = (x - bg) / bg
    tl.store(out_ptr + offs, c.to(out_ptr.dtype.element_ty), mask=mask)


def weber_contrast(x: torch.Tensor, background: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, N = x.shape
    x, background = x.contiguous(), background.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        weber_kernel[(triton.cdiv(n, BLOCK),)](x, background, out, n, N, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, background: torch.Tensor) -> torch.Tensor:
    bg = background[:, None]
    return torch.where(bg != 0, (x - bg) / torch.where(bg != 0, bg, 1.0), torch.zeros_like(x))


spec = kcheck.Spec(
    name="hx21_weber_contrast",
    kernel=weber_contrast,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", name="background")],
    dims={"M": kcheck.Dim(nominal=8, max=16, real=()), "N": kcheck.Dim(nominal=512, max=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
BUG_CLASS = "division-by-zero"

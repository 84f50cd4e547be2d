"""Alpha compositing ("over" with a straight alpha matte): out = alpha * fg + (1 - alpha) * bg, elementwise in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def alpha_blend_kernel(fg_ptr, bg_ptr, a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    fg = tl.load(fg_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    bg = tl.load(bg_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = a * fg + (1.0 - a) * bg
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def alpha_blend(fg: torch.Tensor, bg: torch.Tensor, alpha: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    fg, bg, alpha = fg.contiguous(), bg.contiguous(), alpha.contiguous()
    out = torch.empty_like(fg)
    n = fg.numel()
    if n:
        alpha_blend_kernel[(n // BLOCK,)](fg, bg, alpha, out, n, BLOCK=BLOCK)
    return out


def reference(fg: torch.Tensor, bg: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    return alpha * fg + (1.0 - alpha) * bg


spec = kcheck.Spec(
    name="hx21_alpha_blend",
    kernel=alpha_blend,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="fg"), kcheck.Tensor("M", "N", name="bg"),
            kcheck.Tensor("M", "N", name="alpha", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1024, max=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
BUG_CLASS = "tail-tile-dropped"

"""Inference BatchNorm folded into a per-channel affine, fused with SiLU, on [B, C, L] activations (1-D conv
nets, NCL layout): y = silu(x * scale[c] + shift[c]). A flat 1-D grid over all elements; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bn_silu_kernel(x_ptr, scale_ptr, shift_ptr, y_ptr, n, C, L, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ch = offs % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(scale_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(shift_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    z = x * a + b
    tl.store(y_ptr + offs, (z * tl.sigmoid(z)).to(y_ptr.dtype.element_ty), mask=mask)


def bn_silu(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor, BLOCK: int = 2048) -> torch.Tensor:
    B, C, L = x.shape
    x = x.contiguous()
    y = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    n = x.numel()
    if n:
        bn_silu_kernel[(triton.cdiv(n, BLOCK),)](x, scale.contiguous(), shift.contiguous(), y, n, C, L, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(x * scale[None, :, None] + shift[None, :, None])


BUG_CLASS = "wrong-axis"

spec = kcheck.Spec(
    name="hx13_bn_silu",
    kernel=bn_silu,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("C", name="scale", pattern="randn"),
            kcheck.Tensor("C", name="shift", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=4, max=16, real=()), "C": kcheck.Dim(nominal=32, real=()),
          "L": kcheck.Dim(nominal=64, real=())},
    configs=[{"BLOCK": 2048}, {"BLOCK": 512}],
)

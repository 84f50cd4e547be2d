"""Per-channel affine transform of an (N, C, L) activation (an inference-time BatchNorm folded into scale and
shift): y[n, c, l] = x[n, c, l] * scale[c] + shift[c]. Flat over the N*C*L elements of the contiguous tensor,
BLOCK per program, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def channel_affine_kernel(x_ptr, scale_ptr, shift_ptr, y_ptr, total, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    c = offs % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(scale_ptr + c, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(shift_ptr + c, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * s + t).to(y_ptr.dtype.element_ty), mask=mask)


def channel_affine(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor, BLOCK: int = 4096) -> torch.Tensor:
    C = x.shape[1]
    x = x.contiguous()
    y = torch.empty_like(x)
    total = x.numel()
    if total:
        channel_affine_kernel[(triton.cdiv(total, BLOCK),)](x, scale.contiguous(), shift.contiguous(), y, total, C,
                                                           BLOCK=BLOCK)
    return y


spec = kcheck.Spec(
    name="hx3_channel_affine",
    kernel=channel_affine,
    reference=lambda x, scale, shift: x * scale[None, :, None] + shift[None, :, None],
    inputs=[kcheck.Tensor("N", "C", "L"), kcheck.Tensor("C", name="scale", pattern="randn"),
            kcheck.Tensor("C", name="shift", pattern="randn")],
    dims={"N": kcheck.Dim(nominal=8), "C": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 4096}, {"BLOCK": 1024}],
)

BUG_CLASS = "wrong-axis"

"""Rotary position embedding applied in place (HF "rotate_half" convention):
x <- x * cos + rotate_half(x) * sin, where rotate_half(x) = cat(-x[:, D/2:], x[:, :D/2]); cos and sin are (T, D).

One program per token row; each loads both halves, rotates them in fp32 and writes them back; returns x.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"
GPU_ONLY = False


@triton.jit
def _rope_kernel(x_ptr, cos_ptr, sin_ptr, HALF, stride_x, stride_c, stride_s, BLOCK_H: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    i = tl.arange(0, BLOCK_H)
    mask = i < HALF
    x_row = x_ptr + t * stride_x
    c_row = cos_ptr + t * stride_c
    s_row = sin_ptr + t * stride_s
    x1 = tl.load(x_row + i, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_row + HALF + i, mask=mask, other=0.0).to(tl.float32)
    c1 = tl.load(c_row + i, mask=mask, other=0.0).to(tl.float32)
    c2 = tl.load(c_row + HALF + i, mask=mask, other=0.0).to(tl.float32)
    s1 = tl.load(s_row + i, mask=mask, other=0.0).to(tl.float32)
    s2 = tl.load(s_row + HALF + i, mask=mask, other=0.0).to(tl.float32)
    tl.store(x_row + i, (x1 * c1 - x2 * s1).to(x_ptr.dtype.element_ty), mask=mask)
    tl.store(x_row + HALF + i, (x2 * c2 + x1 * s2).to(x_ptr.dtype.element_ty), mask=mask)


def rope_(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    T, D = x.shape
    assert D % 2 == 0, "the head dimension must be even"
    if T == 0 or D == 0:
        return x
    xc, cos, sin = x.contiguous(), cos.contiguous(), sin.contiguous()
    half = D // 2
    _rope_kernel[(T,)](xc, cos, sin, half, xc.stride(0), cos.stride(0), sin.stride(0),
                       BLOCK_H=triton.next_power_of_2(half))
    return x


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[1] // 2
    rotated = torch.cat([-x[:, half:], x[:, :half]], dim=1)
    return x * cos + rotated * sin


spec = kcheck.Spec(
    name="ho_rope_inplace",
    kernel=rope_,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D", mutated=True), kcheck.Tensor("T", "D"), kcheck.Tensor("T", "D")],
    dims={"T": kcheck.Dim(nominal=128, real=()), "D": kcheck.Dim(nominal=128, multiple_of=2, real=(64,))},
)

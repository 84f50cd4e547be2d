"""Rotary position embedding, GPT-J (interleaved) layout, applied in place: each consecutive pair (x[t, 2i],
x[t, 2i+1]) is rotated by the angle theta[t, i]. The cos/sin tables are (T, D) with each value repeated for the
two members of its pair, as GPT-J's duplicate_interleave builds them. One program per position, BLOCK_H pairs per
step, fp32 arithmetic; x is updated in place (and returned)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def rope_interleaved_kernel(x_ptr, cos_ptr, sin_ptr, HALF, stride_xt, stride_xd, stride_ct, stride_st,
                            BLOCK_H: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + t * stride_xt
    for start in range(0, HALF, BLOCK_H):
        i = start + tl.arange(0, BLOCK_H)
        mask = i < HALF
        c = tl.load(cos_ptr + t * stride_ct + 2 * i, mask=mask, other=0.0).to(tl.float32)
        s = tl.load(sin_ptr + t * stride_st + 2 * i, mask=mask, other=0.0).to(tl.float32)
        x0 = tl.load(x_row + (2 * i) * stride_xd, mask=mask, other=0.0).to(tl.float32)
        x1 = tl.load(x_row + (2 * i + 1) * stride_xd, mask=mask, other=0.0).to(tl.float32)
        tl.store(x_row + (2 * i) * stride_xd, (x0 * c - x1 * s).to(x_ptr.dtype.element_ty), mask=mask)
        tl.store(x_row + (2 * i + 1) * stride_xd, (x0 * s + x1 * c).to(x_ptr.dtype.element_ty), mask=mask)


def rope_interleaved_(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, BLOCK_H: int = 64) -> torch.Tensor:
    T, D = x.shape
    half = D // 2
    x_c, cos, sin = x.contiguous(), cos.contiguous(), sin.contiguous()
    if T and half:
        rope_interleaved_kernel[(T,)](x_c, cos, sin, half, x_c.stride(0), x_c.stride(1), cos.stride(0), sin.stride(0),
                                      BLOCK_H=min(BLOCK_H, triton.next_power_of_2(half)))
    return x


def _angles(ctx):
    T, half = ctx.dims["T"], ctx.dims["D"] // 2
    inv_freq = 1.0 / (10000.0 ** (torch.arange(half, dtype=torch.float64, device=ctx.device) * 2.0 / max(2 * half, 1)))
    theta = torch.arange(T, dtype=torch.float64, device=ctx.device)[:, None] * inv_freq[None, :]
    return theta.repeat_interleave(2, dim=1)


def cos_table(ctx):
    return torch.cos(_angles(ctx)).to(ctx.dtype)


def sin_table(ctx):
    return torch.sin(_angles(ctx)).to(ctx.dtype)


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x0, x1 = x[:, 0::2], x[:, 1::2]
    c, s = cos[:, 0::2], sin[:, 0::2]
    out = torch.empty_like(x)
    out[:, 0::2] = x0 * c - x1 * s
    out[:, 1::2] = x0 * s + x1 * c
    return out


spec = kcheck.Spec(
    name="hx8_rope_interleaved",
    kernel=rope_interleaved_,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D", name="x", mutated=True),
            kcheck.Custom(cos_table, name="cos", dims=("T", "D")),
            kcheck.Custom(sin_table, name="sin", dims=("T", "D"))],
    dims={"T": kcheck.Dim(nominal=128), "D": kcheck.Dim(nominal=128, multiple_of=2)},
    configs=[{"BLOCK_H": 64}, {"BLOCK_H": 16}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "no-op"

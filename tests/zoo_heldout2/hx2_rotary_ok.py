"""Rotary position embedding (RoPE, rotate-half convention) applied to queries or keys of shape (tokens, heads, D):
out[..., :D/2] = x1 * cos - x2 * sin, out[..., D/2:] = x2 * cos + x1 * sin, with cos/sin tables (tokens, D/2)
precomputed per position. One program per (token, block of heads), fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def rotary_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, H, HALF, stride_xt, stride_xh, stride_xd,
                  stride_ct, stride_st, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    pid_h = tl.program_id(1).to(tl.int64)
    heads = pid_h * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    d = tl.arange(0, BLOCK_D).to(tl.int64)
    d_mask = d < HALF
    mask = (heads < H)[:, None] & d_mask[None, :]
    c = tl.load(cos_ptr + t * stride_ct + d, mask=d_mask, other=0.0).to(tl.float32)[None, :]
    s = tl.load(sin_ptr + t * stride_st + d, mask=d_mask, other=0.0).to(tl.float32)[None, :]
    base = x_ptr + t * stride_xt + heads[:, None] * stride_xh
    x1 = tl.load(base + d[None, :] * stride_xd, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(base + (d[None, :] + HALF) * stride_xd, mask=mask, other=0.0).to(tl.float32)
    o = out_ptr + t * H * 2 * HALF + heads[:, None] * 2 * HALF + d[None, :]
    tl.store(o, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o + HALF, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty), mask=mask)


def rotary(x, cos, sin, BLOCK_H=4):
    T, H, D = x.shape
    half = D // 2
    cos = cos if cos.stride(1) == 1 else cos.contiguous()
    sin = sin if sin.stride(1) == 1 else sin.contiguous()
    out = torch.empty((T, H, D), dtype=x.dtype, device=x.device)
    if out.numel():
        grid = (T, triton.cdiv(H, BLOCK_H))
        rotary_kernel[grid](x, cos, sin, out, H, half, x.stride(0), x.stride(1), x.stride(2),
                            cos.stride(0), sin.stride(0), BLOCK_H=BLOCK_H, BLOCK_D=triton.next_power_of_2(half))
    return out


def _table(fn):
    def make(ctx):
        T, half = ctx.dims["T"], ctx.dims["D"] // 2
        inv_freq = 10000.0 ** (-torch.arange(half, dtype=torch.float64) / max(half, 1))
        angle = torch.arange(T, dtype=torch.float64)[:, None] * inv_freq[None, :]
        return fn(angle).to(ctx.dtype).to(ctx.device)
    return make


def reference(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


spec = kcheck.Spec(
    name="hx2_rotary_ok",
    kernel=rotary,
    reference=reference,
    inputs=[kcheck.Tensor("T", "H", "D"), kcheck.Custom(_table(torch.cos), name="cos"),
            kcheck.Custom(_table(torch.sin), name="sin")],
    dims={"T": kcheck.Dim(nominal=32, real=()), "H": kcheck.Dim(nominal=8, max=16, real=()),
          "D": kcheck.Dim(nominal=64, multiple_of=2, real=(128,))},
    configs=[{"BLOCK_H": 4}, {"BLOCK_H": 8}],
)

BUG_CLASS = None

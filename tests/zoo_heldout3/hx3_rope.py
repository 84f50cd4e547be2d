"""Rotary position embedding (GPT-NeoX layout, rotate-half) applied to one head's activations x (T, D):
out[:, :D/2] = x1 cos - x2 sin, out[:, D/2:] = x2 cos + x1 sin, with x1 = x[:, :D/2], x2 = x[:, D/2:] and the
(T, D/2) cos/sin tables of the positions. BLOCK_T positions per program, the whole half-row in one tile, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck

BASE = 10000.0


@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, T, HALF, BLOCK_T: tl.constexpr, BLOCK_H: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    h = tl.arange(0, BLOCK_H).to(tl.int64)
    mask = (t[:, None] < T) & (h[None, :] < HALF)
    D = 2 * HALF
    x_row = x_ptr + t[:, None] * D
    x1 = tl.load(x_row + h[None, :], mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_row + HALF + h[None, :], mask=mask, other=0.0).to(tl.float32)
    c = tl.load(cos_ptr + t[:, None] * HALF + h[None, :], mask=mask, other=0.0).to(tl.float32)
    s = tl.load(sin_ptr + t[:, None] * HALF + h[None, :], mask=mask, other=0.0).to(tl.float32)
    o_row = out_ptr + t[:, None] * D
    tl.store(o_row + h[None, :], (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o_row + HALF + h[None, :], (x2 * c + x1 * s).to(out_ptr.dtype.element_ty), mask=mask)


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, BLOCK_T: int = 16) -> torch.Tensor:
    T, D = x.shape
    out = torch.empty((T, D), dtype=x.dtype, device=x.device)
    if T == 0 or D == 0:
        return out
    half = D // 2
    rope_kernel[(triton.cdiv(T, BLOCK_T),)](x, cos, sin, out, T, half, BLOCK_T=BLOCK_T,
                                            BLOCK_H=triton.next_power_of_2(half))
    return out


def _angles(ctx: kcheck.CaseContext) -> torch.Tensor:
    T, D = ctx.dims["T"], ctx.dims["D"]
    inv_freq = BASE ** (-torch.arange(0, D // 2, device=ctx.device, dtype=torch.float32) * 2.0 / max(D, 1))
    return torch.arange(T, device=ctx.device, dtype=torch.float32)[:, None] * inv_freq[None, :]


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    x1, x2 = x[:, :half], x[:, half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


spec = kcheck.Spec(
    name="hx3_rope",
    kernel=rope,
    reference=reference,
    inputs=[kcheck.Tensor("T", "D"),
            kcheck.Custom(lambda ctx: _angles(ctx).cos().to(ctx.dtype), name="cos"),
            kcheck.Custom(lambda ctx: _angles(ctx).sin().to(ctx.dtype), name="sin")],
    dims={"T": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=128, multiple_of=2)},
    configs=[{"BLOCK_T": 16}, {"BLOCK_T": 64}],
)

BUG_CLASS = "stride-assumption"

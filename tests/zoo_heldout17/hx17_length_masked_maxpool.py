"""Length-masked max pooling over time for padded sequence batches (speech / text encoders).

x is [B, T, D] with per-sequence lengths [B] (1..T): out[b, d] = max over t < lengths[b] of x[b, t, d]. NaN samples
are ignored, as a GPU max does. One program per (sequence, block of D features), looping over time in chunks of
BLOCK_T; row offsets in int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def masked_maxpool_kernel(x_ptr, len_ptr, out_ptr, T, D, stride_xb, stride_xt, stride_xd, stride_ob, stride_od,
                          BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    col_mask = cols < D
    length = tl.load(len_ptr + b)
    acc = tl.full([BLOCK_D], float("-inf"), dtype=tl.float32)
    for t0 in range(0, T, BLOCK_T):
        t = t0 + tl.arange(0, BLOCK_T)
        valid = (t < T) & (t <= length)
        ptrs = x_ptr + b * stride_xb + t[:, None].to(tl.int64) * stride_xt + cols[None, :] * stride_xd
        x = tl.load(ptrs, mask=valid[:, None] & col_mask[None, :], other=float("-inf")).to(tl.float32)
        acc = tl.maximum(acc, tl.max(x, axis=0))
    tl.store(out_ptr + b * stride_ob + cols * stride_od, acc.to(out_ptr.dtype.element_ty), mask=col_mask)


def length_masked_maxpool(x, lengths, BLOCK_T=32, BLOCK_D=128):
    B, T, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if B and D:
        grid = (B, triton.cdiv(D, BLOCK_D))
        masked_maxpool_kernel[grid](x, lengths, out, T, D, x.stride(0), x.stride(1), x.stride(2), out.stride(0),
                                    out.stride(1), BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


def make_lengths(ctx):
    B, T = ctx.dims["B"], ctx.dims["T"]
    lengths = torch.randint(1, T + 1, (B,), generator=ctx.generator)
    if B:
        lengths[0] = T
    if B > 1:
        lengths[-1] = 1
    return lengths.to(ctx.device)


def reference(x, lengths):
    T = x.shape[1]
    valid = torch.arange(T, device=x.device)[None, :] < lengths[:, None]
    keep = valid[:, :, None] & ~torch.isnan(x)
    return x.masked_fill(~keep, float("-inf")).amax(dim=1)


spec = kcheck.Spec(
    name="hx17_length_masked_maxpool",
    kernel=length_masked_maxpool,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", "D", name="x"), kcheck.Custom(make_lengths, name="lengths", dims=("B",))],
    dims={"B": kcheck.Dim(nominal=8, max=16, real=()), "T": kcheck.Dim(nominal=64, min=1, max=512, real=(37,)),
          "D": kcheck.Dim(nominal=96, max=1024, real=(37,))},
    configs=[{"BLOCK_T": 32, "BLOCK_D": 128}, {"BLOCK_T": 16, "BLOCK_D": 64}],
)

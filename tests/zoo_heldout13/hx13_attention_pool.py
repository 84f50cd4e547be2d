"""Attention pooling over a sequence (as in set / MIL pooling heads): with per-position scores s[b, t] and values
v[b, t, :], out[b, :] = sum_t softmax(s[b, :])[t] * v[b, t, :].

One program per batch row; positions are visited in BLOCK_T chunks, accumulating the exp-weighted values and the
normaliser in fp32, divided at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def attn_pool_kernel(s_ptr, v_ptr, o_ptr, T, D, stride_sb, stride_st, stride_vb, stride_vt, stride_vd,
                     stride_ob, stride_od, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    d = tl.arange(0, BLOCK_D).to(tl.int64)
    d_mask = d < D
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    l = tl.zeros([BLOCK_T], dtype=tl.float32)
    for start in range(0, T, BLOCK_T):
        t = start + tl.arange(0, BLOCK_T).to(tl.int64)
        t_mask = t < T
        s = tl.load(s_ptr + b * stride_sb + t * stride_st, mask=t_mask, other=-float("inf")).to(tl.float32)
        p = tl.where(t_mask, tl.exp(s), 0.0)
        v = tl.load(v_ptr + b * stride_vb + t[:, None] * stride_vt + d[None, :] * stride_vd,
                    mask=t_mask[:, None] & d_mask[None, :], other=0.0).to(tl.float32)
        acc += tl.sum(p[:, None] * v, axis=0)
        l += p
    out = acc / tl.sum(l, axis=0)
    tl.store(o_ptr + b * stride_ob + d * stride_od, out.to(o_ptr.dtype.element_ty), mask=d_mask)


def attention_pool(scores: torch.Tensor, values: torch.Tensor, BLOCK_T: int = 32) -> torch.Tensor:
    B, T = scores.shape
    D = values.shape[2]
    out = torch.empty((B, D), dtype=values.dtype, device=values.device)
    if B == 0 or D == 0:
        return out
    if T == 0:
        return out.fill_(float("nan"))
    attn_pool_kernel[(B,)](scores, values, out, T, D, scores.stride(0), scores.stride(1), values.stride(0),
                           values.stride(1), values.stride(2), out.stride(0), out.stride(1),
                           BLOCK_T=BLOCK_T, BLOCK_D=triton.next_power_of_2(D))
    return out


def reference(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    w = torch.softmax(scores, dim=-1)
    return torch.einsum("bt,btd->bd", w, values)


BUG_CLASS = "exp-overflow"

spec = kcheck.Spec(
    name="hx13_attention_pool",
    kernel=attention_pool,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", name="scores"), kcheck.Tensor("B", "T", "D", name="values", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=16, real=()), "T": kcheck.Dim(nominal=96, min=1, real=()),
          "D": kcheck.Dim(nominal=64, max=256, real=())},
    reduce=["T"],
    configs=[{"BLOCK_T": 32}, {"BLOCK_T": 16}],
)

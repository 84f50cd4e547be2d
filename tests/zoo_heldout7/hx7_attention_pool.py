"""Attention pooling over a sequence (as in set/sequence classifiers): each batch row b has scores s[b, :]
over its L positions and values v[b, :, :]; the pooled vector is

    out[b, :] = sum_l softmax(s[b])_l * v[b, l, :]

One program per batch row; it streams the sequence in BLOCK_L chunks, keeping the softmax numerator
(a weighted sum of values, BLOCK_D wide) and its normalizer in fp32, then divides once at the end."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def attention_pool_kernel(s_ptr, v_ptr, out_ptr, L, D,
                          stride_sb, stride_vb, stride_vl, stride_ob,
                          BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    d = tl.arange(0, BLOCK_D)
    d_mask = d < D
    den = tl.zeros([1], dtype=tl.float32)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, L, BLOCK_L):
        ls = start + tl.arange(0, BLOCK_L)
        l_mask = ls < L
        s = tl.load(s_ptr + b * stride_sb + ls, mask=l_mask, other=float("-inf")).to(tl.float32)
        v = tl.load(v_ptr + b * stride_vb + ls[:, None] * stride_vl + d[None, :],
                    mask=l_mask[:, None] & d_mask[None, :], other=0.0).to(tl.float32)
        p = tl.exp(s)
        den += tl.sum(p, axis=0)
        acc += tl.sum(p[:, None] * v, axis=0)
    out = acc / den
    tl.store(out_ptr + b * stride_ob + d, out.to(out_ptr.dtype.element_ty), mask=d_mask)


def attention_pool(scores, values, BLOCK_L=32):
    B, L = scores.shape
    D = values.shape[2]
    out = torch.empty((B, D), dtype=values.dtype, device=values.device)
    if B == 0 or D == 0:
        return out
    if scores.stride(1) != 1:
        scores = scores.contiguous()
    if values.stride(2) != 1:
        values = values.contiguous()
    attention_pool_kernel[(B,)](scores, values, out, L, D,
                                scores.stride(0), values.stride(0), values.stride(1), out.stride(0),
                                BLOCK_L=BLOCK_L, BLOCK_D=triton.next_power_of_2(D))
    return out


def reference(scores, values):
    p = torch.softmax(scores, dim=-1)
    return torch.einsum("bl,bld->bd", p, values)


spec = kcheck.Spec(
    name="hx7_attention_pool",
    kernel=attention_pool,
    reference=reference,
    inputs=[kcheck.Tensor("B", "L", name="scores"), kcheck.Tensor("B", "L", "D", name="values")],
    dims={"B": kcheck.Dim(nominal=16), "L": kcheck.Dim(nominal=128, min=1), "D": kcheck.Dim(nominal=64)},
    reduce=["L"],
    configs=[{"BLOCK_L": 32}, {"BLOCK_L": 128}],
)

BUG_CLASS = "exp-overflow"

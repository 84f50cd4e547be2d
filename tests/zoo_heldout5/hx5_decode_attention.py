"""Single-query attention for decoding: for every head h,

    out[h] = softmax(k[h] @ q[h] / sqrt(D)) @ v[h]        q: [H, D], k and v: [H, S, D] (the KV cache)

One program per head walks the cache BLOCK_S positions at a time, keeping the softmax denominator and the weighted
sum of values in fp32, and divides once at the end. The head dimension is one block (D <= 256). Output in the
input dtype; int64 offsets; any strides.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def decode_attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, S, D, scale,
                            stride_qh, stride_qd, stride_kh, stride_ks, stride_kd,
                            stride_vh, stride_vs, stride_vd, stride_oh, stride_od,
                            BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    h = tl.program_id(0).to(tl.int64)
    d = tl.arange(0, BLOCK_D).to(tl.int64)
    d_mask = d < D
    q = tl.load(q_ptr + h * stride_qh + d * stride_qd, mask=d_mask, other=0.0).to(tl.float32)
    denom = tl.zeros([BLOCK_S], dtype=tl.float32)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, S, BLOCK_S):
        s = start + tl.arange(0, BLOCK_S).to(tl.int64)
        s_mask = s < S
        mask = s_mask[:, None] & d_mask[None, :]
        k = tl.load(k_ptr + h * stride_kh + s[:, None] * stride_ks + d[None, :] * stride_kd, mask=mask,
                    other=0.0).to(tl.float32)
        v = tl.load(v_ptr + h * stride_vh + s[:, None] * stride_vs + d[None, :] * stride_vd, mask=mask,
                    other=0.0).to(tl.float32)
        scores = tl.sum(k * q[None, :], axis=1) * scale
        p = tl.where(s_mask, tl.exp(scores), 0.0)
        denom += p
        acc += tl.sum(p[:, None] * v, axis=0)
    out = acc / tl.sum(denom, axis=0)
    tl.store(out_ptr + h * stride_oh + d * stride_od, out.to(out_ptr.dtype.element_ty), mask=d_mask)


def decode_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, BLOCK_S: int = 64) -> torch.Tensor:
    H, S, D = k.shape
    out = torch.empty((H, D), dtype=q.dtype, device=q.device)
    if H == 0 or D == 0:
        return out
    if S == 0:
        return out.fill_(float("nan"))  # softmax over no position
    decode_attention_kernel[(H,)](q, k, v, out, S, D, 1.0 / math.sqrt(D),
                                  q.stride(0), q.stride(1), k.stride(0), k.stride(1), k.stride(2),
                                  v.stride(0), v.stride(1), v.stride(2), out.stride(0), out.stride(1),
                                  BLOCK_S=BLOCK_S, BLOCK_D=triton.next_power_of_2(D))
    return out


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    D = q.shape[-1]
    scores = torch.einsum("hsd,hd->hs", k, q) / math.sqrt(D)
    return torch.einsum("hs,hsd->hd", torch.softmax(scores, dim=-1), v)


spec = kcheck.Spec(
    name="hx5_decode_attention",
    kernel=decode_attention,
    reference=reference,
    inputs=[kcheck.Tensor("H", "D", name="q"), kcheck.Tensor("H", "S", "D", name="k"),
            kcheck.Tensor("H", "S", "D", name="v")],
    dims={"H": kcheck.Dim(nominal=8), "S": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=64, max=256)},
    reduce=["S"],
    configs=[{"BLOCK_S": 64}, {"BLOCK_S": 16}],
)

BUG_CLASS = "exp-overflow"

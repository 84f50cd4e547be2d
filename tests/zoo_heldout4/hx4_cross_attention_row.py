"""Cross-attention for a handful of queries against a short memory: out[i] = softmax(q_i K^T / sqrt(D)) V.
One program per query; the whole memory (T <= 1024 keys) in one block; scores in fp32, the softmax through exp2
with the log2(e) factor folded into the scale."""

import torch
import triton
import triton.language as tl

import kcheck

LOG2E = 0.6931471805599453


@triton.jit
def cross_attn_kernel(q_ptr, k_ptr, v_ptr, out_ptr, T, D, stride_qm, stride_kt, stride_vt, stride_om, qk_scale,
                      BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    i = tl.program_id(0).to(tl.int64)
    keys = tl.arange(0, BLOCK_T)
    dims = tl.arange(0, BLOCK_D)
    kmask = keys < T
    dmask = dims < D
    q = tl.load(q_ptr + i * stride_qm + dims, mask=dmask, other=0.0).to(tl.float32)
    k = tl.load(k_ptr + keys[:, None] * stride_kt + dims[None, :], mask=kmask[:, None] & dmask[None, :],
                other=0.0).to(tl.float32)
    s = tl.sum(k * q[None, :], axis=1) * qk_scale
    s = tl.where(kmask, s, -float("inf"))
    m = tl.max(s, axis=0)
    p = tl.exp2(s - m)
    p = tl.where(kmask, p, 0.0)
    v = tl.load(v_ptr + keys[:, None] * stride_vt + dims[None, :], mask=kmask[:, None] & dmask[None, :],
                other=0.0).to(tl.float32)
    o = tl.sum(p[:, None] * v, axis=0) / tl.sum(p, axis=0)
    tl.store(out_ptr + i * stride_om + dims, o.to(out_ptr.dtype.element_ty), mask=dmask)


def cross_attention(q, k, v):
    M, D = q.shape
    T = k.shape[0]
    out = torch.empty((M, D), dtype=q.dtype, device=q.device)
    if M == 0 or D == 0:
        return out
    q, k, v = (t if t.stride(-1) == 1 else t.contiguous() for t in (q, k, v))
    qk_scale = D ** -0.5 * LOG2E
    cross_attn_kernel[(M,)](q, k, v, out, T, D, q.stride(0), k.stride(0), v.stride(0), out.stride(0), qk_scale,
                            BLOCK_T=triton.next_power_of_2(T), BLOCK_D=triton.next_power_of_2(D))
    return out


def reference(q, k, v):
    scores = q @ k.t() / q.shape[-1] ** 0.5
    return torch.softmax(scores, dim=-1) @ v


spec = kcheck.Spec(
    name="hx4_cross_attention_row",
    kernel=cross_attention,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="q"), kcheck.Tensor("T", "D", name="k"), kcheck.Tensor("T", "D", name="v")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "T": kcheck.Dim(nominal=128, min=1, max=1024, real=()),
          "D": kcheck.Dim(nominal=64, max=256, real=())},
    reduce=["T", "D"],
)

BUG_CLASS = "wrong-constant"

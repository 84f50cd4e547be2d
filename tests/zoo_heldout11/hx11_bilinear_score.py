"""Bilinear score per pair, s[b] = x[b]^T W y[b] (a bilinear relation / critic head): x [B, D1], W [D1, D2],
y [B, D2].

One program per row b: for each BLOCK_J slice of D2 it forms t = x[b] @ W[:, slice] over BLOCK_I chunks of D1, then
adds t . y[b, slice] to the score. Products are formed in the storage dtype, sums are kept in fp32.

Planted bug (low-precision-accumulation): the partial product t = x @ W[:, slice] is accumulated over the D1 chunks
in the storage dtype (bf16/fp16 running sum, re-rounded after every chunk) instead of fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bilinear_kernel(x_ptr, w_ptr, y_ptr, out_ptr, B, D1, D2, sxb, sxi, swi, swj, syb, syj,
                    BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    score = tl.zeros([1], dtype=tl.float32)
    for j0 in range(0, D2, BLOCK_J):
        js = j0 + tl.arange(0, BLOCK_J)
        jmask = js < D2
        t = tl.zeros([BLOCK_J], dtype=w_ptr.dtype.element_ty)
        for i0 in range(0, D1, BLOCK_I):
            i_s = i0 + tl.arange(0, BLOCK_I)
            imask = i_s < D1
            x = tl.load(x_ptr + b * sxb + i_s * sxi, mask=imask, other=0.0)
            w = tl.load(w_ptr + i_s[:, None] * swi + js[None, :] * swj, mask=imask[:, None] & jmask[None, :],
                        other=0.0)
            t += tl.sum(x[:, None] * w, axis=0)
        y = tl.load(y_ptr + b * syb + js * syj, mask=jmask, other=0.0).to(tl.float32)
        score += tl.sum(t * y, axis=0, keep_dims=True)
    one = b + tl.arange(0, 1)
    tl.store(out_ptr + one, score.to(out_ptr.dtype.element_ty), mask=one < B)


def bilinear_score(x, w, y, BLOCK_I=32, BLOCK_J=64):
    B = x.shape[0]
    D1, D2 = w.shape
    out = torch.empty(B, dtype=x.dtype, device=x.device)
    if B:
        bilinear_kernel[(B,)](x, w, y, out, B, D1, D2, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                              y.stride(0), y.stride(1), BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
    return out


def reference(x, w, y):
    return ((x @ w) * y).sum(-1)


spec = kcheck.Spec(
    name="hx11_bilinear_score",
    kernel=bilinear_score,
    reference=reference,
    inputs=[kcheck.Tensor("B", "D1", name="x"), kcheck.Tensor("D1", "D2", name="weight"),
            kcheck.Tensor("B", "D2", name="y")],
    dims={"B": kcheck.Dim(nominal=16), "D1": kcheck.Dim(nominal=512), "D2": kcheck.Dim(nominal=96)},
    reduce=["D1", "D2"],
    configs=[{"BLOCK_I": 32, "BLOCK_J": 64}, {"BLOCK_I": 128, "BLOCK_J": 32}],
)

BUG_CLASS = "low-precision-accumulation"  # x @ W partials accumulated in bf16/fp16

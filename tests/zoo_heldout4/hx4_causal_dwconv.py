"""Causal depthwise conv1d with a short kernel (the token-mixing conv of Mamba-style blocks): for x [C, L],
w [C, K], bias [C], out[c, t] = bias[c] + sum_k w[c, k] x[c, t - (K - 1) + k], x taken as 0 before t = 0.
2-D tiles of channels x positions, the K taps unrolled, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck

K = 4


@triton.jit
def causal_dwconv_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, L, stride_xc, stride_xl, stride_wc, stride_wk, stride_oc,
                         KSIZE: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    ch = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    t = tl.program_id(1).to(tl.int64) * BLOCK_L + tl.arange(0, BLOCK_L)
    cmask = ch < C
    acc = tl.zeros([BLOCK_C, BLOCK_L], dtype=tl.float32)
    acc += tl.load(b_ptr + ch, mask=cmask, other=0.0).to(tl.float32)[:, None]
    for k in tl.static_range(KSIZE):
        src = t - (KSIZE - 1) + k
        m = cmask[:, None] & ((src >= 0) & (src < L))[None, :]
        xv = tl.load(x_ptr + ch[:, None] * stride_xc + src[None, :] * stride_xl, mask=m, other=0.0)
        wk = tl.load(w_ptr + ch * stride_wc + k * stride_wk, mask=cmask, other=0.0)
        acc += wk.to(tl.float32)[:, None] * xv.to(tl.float32)
    omask = cmask[:, None] & (t < L)[None, :]
    tl.store(out_ptr + ch[:, None] * stride_oc + t[None, :], acc.to(out_ptr.dtype.element_ty), mask=omask)


def causal_dwconv(x, w, bias, BLOCK_C=16, BLOCK_L=128):
    C, L = x.shape
    out = torch.empty((C, L), dtype=x.dtype, device=x.device)
    if C == 0 or L == 0:
        return out
    grid = (triton.cdiv(C, BLOCK_C), triton.cdiv(L, BLOCK_L))
    causal_dwconv_kernel[grid](x, w, bias, out, C, L, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                               out.stride(0), KSIZE=w.shape[1], BLOCK_C=BLOCK_C, BLOCK_L=BLOCK_L)
    return out


def reference(x, w, bias):
    C, L = x.shape
    k = w.shape[1]
    xp = torch.nn.functional.pad(x, (k - 1, 0))
    out = bias[:, None].expand(C, L).clone()
    for i in range(k):
        out = out + w[:, i, None] * xp[:, i:i + L]
    return out


spec = kcheck.Spec(
    name="hx4_causal_dwconv",
    kernel=causal_dwconv,
    reference=reference,
    inputs=[kcheck.Tensor("C", "L", name="x"), kcheck.Tensor("C", K, name="weight"), kcheck.Tensor("C", name="bias")],
    dims={"C": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_C": 16, "BLOCK_L": 128}, {"BLOCK_C": 64, "BLOCK_L": 32}],
)

BUG_CLASS = None

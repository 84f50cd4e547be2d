"""Depthwise causal 1-D convolution (the short convolution of Mamba-style blocks): each of C channels of x (C, L)
is convolved with its own KSIZE-tap filter w (C, KSIZE), left-padded with zeros so that out[c, t] depends on
x[c, t - KSIZE + 1 .. t] only: out[c, t] = sum_k w[c, k] * x[c, t - KSIZE + 1 + k]. Tiles of BLOCK_L positions by as
many channels as fit in about TILE elements, fp32 accumulation, any strides."""

import torch
import triton
import triton.language as tl

import kcheck

KSIZE = 4


@triton.jit
def causal_conv1d_kernel(x_ptr, w_ptr, out_ptr, C, L, stride_xc, stride_xl, stride_wc, stride_wk, stride_oc,
                         stride_ol, KSIZE: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    ch = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    pos = tl.program_id(1).to(tl.int64) * BLOCK_L + tl.arange(0, BLOCK_L)
    ch_mask = ch < C
    acc = tl.zeros([BLOCK_C, BLOCK_L], dtype=tl.float32)
    for k in tl.static_range(KSIZE):
        src = pos - (KSIZE - 1) + k
        m = ch_mask[:, None] & (src[None, :] >= 0) & (src[None, :] < L)
        x = tl.load(x_ptr + ch[:, None] * stride_xc + src[None, :] * stride_xl, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + ch * stride_wc + k * stride_wk, mask=ch_mask, other=0.0).to(tl.float32)
        acc += w[:, None] * x
    mask = ch_mask[:, None] & (pos[None, :] < L)
    tl.store(out_ptr + ch[:, None] * stride_oc + pos[None, :] * stride_ol, acc.to(out_ptr.dtype.element_ty),
             mask=mask)


def causal_conv1d(x: torch.Tensor, w: torch.Tensor, BLOCK_L: int = 256, TILE: int = 4096) -> torch.Tensor:
    C, L = x.shape
    out = torch.empty((C, L), dtype=x.dtype, device=x.device)
    if C == 0 or L == 0:
        return out
    block_l = min(BLOCK_L, triton.next_power_of_2(L))
    block_c = max(1, min(TILE // block_l, triton.next_power_of_2(C)))
    grid = (triton.cdiv(C, block_c), triton.cdiv(L, block_l))
    causal_conv1d_kernel[grid](x, w, out, C, L, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                               out.stride(0), out.stride(1), KSIZE=KSIZE, BLOCK_C=block_c, BLOCK_L=block_l)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    C, L = x.shape
    if C == 0 or L == 0:
        return x.clone()
    y = torch.nn.functional.conv1d(x[None], w[:, None, :], padding=KSIZE - 1, groups=C)
    return y[0, :, :L]


spec = kcheck.Spec(
    name="hx3_causal_conv1d_ok",
    kernel=causal_conv1d,
    reference=reference,
    inputs=[kcheck.Tensor("C", "L"), kcheck.Tensor("C", KSIZE, name="weight", pattern="randn")],
    dims={"C": kcheck.Dim(nominal=256), "L": kcheck.Dim(nominal=1024)},
    configs=[{"BLOCK_L": 256}, {"BLOCK_L": 64}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = None

"""StyleGAN2 weight modulation and demodulation: a convolution weight w [O, I, K] (K kernel taps, flattened, up to 5x5) is
scaled per input channel by the style s [I], then each output channel is renormalized to unit norm:
w'[o, i, k] = w[o, i, k] s[i] / sqrt(sum_{i, k} (w[o, i, k] s[i])^2 + eps). One program per output channel, two
passes over the (input channel, tap) plane in square BLOCK x BLOCK tiles (the sum of squares in fp32, then the
scaled write). Strides passed explicitly, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"

EPS = 1e-8


@triton.jit
def demodulate_kernel(w_ptr, s_ptr, out_ptr, I, K, eps, s_wo, s_wi, s_wk, s_s, s_oo, s_oi, s_ok,
                      BLOCK: tl.constexpr):
    o = tl.program_id(0).to(tl.int64)
    lane = tl.arange(0, BLOCK).to(tl.int64)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for i0 in range(0, I, BLOCK):
        i = i0 + lane
        s = tl.load(s_ptr + i * s_s, mask=i < I, other=0.0).to(tl.float32)
        for k0 in range(0, K, BLOCK):
            k = k0 + lane
            mask = (i < I)[:, None] & (k < K)[None, :]
            w = tl.load(w_ptr + o * s_wo + i[:, None] * s_wi + k[None, :] * s_wk, mask=mask, other=0.0)
            ws = w.to(tl.float32) * s[:, None]
            acc += ws * ws
    demod = 1.0 / tl.sqrt(tl.sum(tl.sum(acc, axis=1), axis=0) + eps)
    for i0 in range(0, I, BLOCK):
        i = i0 + lane
        s = tl.load(s_ptr + i * s_s, mask=i < I, other=0.0).to(tl.float32)
        for k0 in range(0, K, BLOCK):
            k = k0 + lane
            mask = (i < I)[:, None] & (k < K)[None, :]
            w = tl.load(w_ptr + o * s_wo + i[:, None] * s_wi + k[None, :] * s_wk, mask=mask, other=0.0)
            ws = w.to(tl.float32) * s[None, :] * demod
            tl.store(out_ptr + o * s_oo + i[:, None] * s_oi + k[None, :] * s_ok, ws.to(out_ptr.dtype.element_ty),
                     mask=mask)


def demodulate(w, s, BLOCK=32):
    O, I, K = w.shape
    out = torch.empty((O, I, K), dtype=w.dtype, device=w.device)
    if O == 0 or I == 0 or K == 0:
        return out
    demodulate_kernel[(O,)](w, s, out, I, K, EPS, w.stride(0), w.stride(1), w.stride(2), s.stride(0),
                            out.stride(0), out.stride(1), out.stride(2), BLOCK=BLOCK)
    return out


def reference(w, s):
    ws = w * s[None, :, None]
    return ws / torch.sqrt((ws * ws).sum(dim=(1, 2), keepdim=True) + EPS)


spec = kcheck.Spec(
    name="hx25_weight_demodulation",
    kernel=demodulate,
    reference=reference,
    inputs=[kcheck.Tensor("O", "I", "K", name="weight"), kcheck.Tensor("I", pattern="randn", name="style")],
    dims={"O": kcheck.Dim(nominal=32), "I": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=9, max=25)},
    reduce=["I", "K"],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

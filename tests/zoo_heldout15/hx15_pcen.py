"""Per-channel energy normalization (PCEN, Wang et al., 2017), the trainable loudness compression of keyword-spotting
and bioacoustics front ends, on a mel energy sequence E [T, C] (frames x mel bins, E = |x|):

    M[0] = E[0];  M[t] = (1 - s) * M[t - 1] + s * E[t]          (a first-order IIR smoother per channel)
    P[t] = (E[t] / (eps + M[t])^alpha + delta)^r - delta^r

One program per block of BLOCK_C channels steps through the frames in order, carrying M in fp32 registers; each step
reads one row of BLOCK_C channels. T is bounded (4096 frames: a few seconds of audio per chunk); the reference steps
the same recursion in float64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"

S, ALPHA, DELTA, R, EPS = 0.025, 0.98, 2.0, 0.5, 1e-6


@triton.jit
def pcen_kernel(x_ptr, out_ptr, T, C, s_xt, s_xc, s_ot, s_oc, S: tl.constexpr, ALPHA: tl.constexpr,
                DELTA: tl.constexpr, R: tl.constexpr, EPS: tl.constexpr, BLOCK_C: tl.constexpr):
    cs = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    c_ok = cs < C
    m = tl.abs(tl.load(x_ptr + cs * s_xc, mask=c_ok, other=0.0).to(tl.float32))
    delta_r = tl.exp2(R * tl.log2(DELTA))
    for t in range(0, T):
        e = tl.abs(tl.load(x_ptr + t * s_xt + cs * s_xc, mask=c_ok, other=0.0).to(tl.float32))
        m = (1.0 - S) * m + S * e
        gain = tl.exp2(ALPHA * tl.log2(m))
        p = tl.exp2(R * tl.log2(e / gain + DELTA)) - delta_r
        tl.store(out_ptr + t * s_ot + cs * s_oc, p.to(out_ptr.dtype.element_ty), mask=c_ok)


def pcen(x, BLOCK_C=64):
    T, C = x.shape
    out = torch.empty((T, C), dtype=x.dtype, device=x.device)
    if T == 0 or C == 0:
        return out
    pcen_kernel[(triton.cdiv(C, BLOCK_C),)](x, out, T, C, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                            S=S, ALPHA=ALPHA, DELTA=DELTA, R=R, EPS=EPS, BLOCK_C=BLOCK_C)
    return out


def reference(x):
    e = x.abs()
    out = torch.empty_like(e)
    if e.shape[0] == 0:
        return out
    m = e[0]
    for t in range(e.shape[0]):
        m = (1.0 - S) * m + S * e[t]
        out[t] = (e[t] / (EPS + m) ** ALPHA + DELTA) ** R - DELTA ** R
    return out


spec = kcheck.Spec(
    name="hx15_pcen",
    kernel=pcen,
    reference=reference,
    inputs=[kcheck.Tensor("T", "C", name="mel_energy")],
    dims={"T": kcheck.Dim(nominal=64, max=4096, real=(), large=False), "C": kcheck.Dim(nominal=128, real=(80,))},
    configs=[{"BLOCK_C": 64}, {"BLOCK_C": 16}],
)

"""Channel gating of a 1-D conv block (squeeze-and-excitation with a per-channel affine excitation, as in lightweight
audio / keyword-spotting models), for x [B, C, L]:

    s[b, c] = mean_l x[b, c, l]
    out[b, c, l] = x[b, c, l] * sigmoid(w[c] * s[b, c] + bias[c])

One program per (sequence, block of BLOCK channels) walks the length in BLOCK-wide square tiles twice: once to sum
(fp32), once to scale and store. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def se_gate_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, L, s_xb, s_xc, s_xl, s_ob, s_oc, s_ol,
                   BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cs = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    c_ok = cs < C
    x_base = x_ptr + b * s_xb + cs[:, None] * s_xc
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        ls = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = c_ok[:, None] & (ls < L)[None, :]
        x = tl.load(x_base + ls[None, :] * s_xl, mask=mask, other=0.0).to(tl.float32)
        acc += tl.sum(x, axis=0)
    s = acc / L
    w = tl.load(w_ptr + cs, mask=c_ok, other=0.0).to(tl.float32)
    bias = tl.load(b_ptr + cs, mask=c_ok, other=0.0).to(tl.float32)
    gate = tl.sigmoid(w * s + bias)
    for start in range(0, L, BLOCK):
        ls = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = c_ok[:, None] & (ls < L)[None, :]
        x = tl.load(x_base + ls[None, :] * s_xl, mask=mask, other=0.0).to(tl.float32)
        y = x * gate[:, None]
        tl.store(out_ptr + b * s_ob + cs[:, None] * s_oc + ls[None, :] * s_ol, y.to(out_ptr.dtype.element_ty),
                 mask=mask)


def se_gate(x, w, bias, BLOCK=32):
    B, C, L = x.shape
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    w, bias = w.contiguous(), bias.contiguous()
    se_gate_kernel[(B, triton.cdiv(C, BLOCK))](x, w, bias, out, C, L, x.stride(0), x.stride(1), x.stride(2),
                                               out.stride(0), out.stride(1), out.stride(2), BLOCK=BLOCK)
    return out


def reference(x, w, bias):
    s = x.mean(-1)
    return x * torch.sigmoid(w * s + bias)[..., None]


spec = kcheck.Spec(
    name="hx15_squeeze_excite",
    kernel=se_gate,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("C", name="w"), kcheck.Tensor("C", name="bias")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=(), large=False), "C": kcheck.Dim(nominal=64, real=(256,), large=False),
          "L": kcheck.Dim(nominal=100, min=1, real=(1000,))},
    reduce=["L"],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

"""adaLN modulation (DiT, Peebles & Xie 2023): a LayerNorm without affine parameters, then a per-sample scale
and shift produced by the conditioning,

    out[b, t, :] = LN(x[b, t, :]) * (1 + scale[b, :]) + shift[b, :],   LN over the last dimension, eps = 1e-6

x: (B, T, D); shift, scale: (B, D). One program per token row (b, t), the row whole in one block (D <= 8192),
fp32 statistics (two-pass variance, the row shifted by its first element first), output in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def adaln_kernel(x_ptr, shift_ptr, scale_ptr, out_ptr, T, D, eps,
                 s_xb, s_xt, s_xd, s_hb, s_hd, s_cb, s_cd, s_ob, s_ot, s_od, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    b = row // T
    t = row % T
    cols = tl.arange(0, BLOCK_D).to(tl.int64)
    m = cols < D
    x_row = x_ptr + row * D
    x = tl.load(x_row + cols * s_xd, mask=m, other=0.0).to(tl.float32)
    xs = tl.where(m, x - tl.load(x_row).to(tl.float32), 0.0)  # about the first element: constant rows stay exact
    xc = tl.where(m, xs - tl.sum(xs, axis=0) / D, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / D + eps)
    shift = tl.load(shift_ptr + b * s_hb + cols * s_hd, mask=m, other=0.0).to(tl.float32)
    scale = tl.load(scale_ptr + b * s_cb + cols * s_cd, mask=m, other=0.0).to(tl.float32)
    y = xc * rstd * (1.0 + scale) + shift
    tl.store(out_ptr + b * s_ob + t * s_ot + cols * s_od, y.to(out_ptr.dtype.element_ty), mask=m)


def adaln_modulate(x, shift, scale):
    B, T, D = x.shape
    out = torch.empty((B, T, D), dtype=x.dtype, device=x.device)
    if B * T == 0 or D == 0:
        return out
    adaln_kernel[(B * T,)](x, shift, scale, out, T, D, EPS,
                           x.stride(0), x.stride(1), x.stride(2), shift.stride(0), shift.stride(1),
                           scale.stride(0), scale.stride(1), out.stride(0), out.stride(1), out.stride(2),
                           BLOCK_D=triton.next_power_of_2(D))
    return out


def reference(x, shift, scale):
    y = torch.nn.functional.layer_norm(x, x.shape[-1:], eps=EPS)
    return y * (1 + scale[:, None, :]) + shift[:, None, :]


BUG_CLASS = "stride-assumption"

spec = kcheck.Spec(
    name="hx18_adaln_modulate",
    kernel=adaln_modulate,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", "D", name="x"), kcheck.Tensor("B", "D", name="shift"),
            kcheck.Tensor("B", "D", name="scale")],
    dims={"B": kcheck.Dim(nominal=2, max=4, real=()), "T": kcheck.Dim(nominal=64),
          "D": kcheck.Dim(nominal=256, max=8192)},
    reduce=["D"],
)

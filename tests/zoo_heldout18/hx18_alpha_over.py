"""Porter-Duff "over" compositing of a foreground layer onto a background, per pixel and channel:

    out[p, c] = fg[p, c] * alpha[p] + bg[p, c] * (1 - alpha[p])

Pixels are rows, channels columns (C = 3 or 4 planes flattened, or a feature dimension). Each program takes a
BLOCK_P x BLOCK_C tile; alpha is read once per pixel of the tile and broadcast over its channels. Arithmetic in
fp32, output in the input dtype, int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def alpha_over_kernel(fg_ptr, bg_ptr, a_ptr, out_ptr, P, C,
                      s_fp, s_fc, s_bp, s_bc, s_a, s_op, s_oc,
                      BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_p = tl.program_id(0).to(tl.int64)
    pid_c = tl.program_id(1).to(tl.int64)
    rows = pid_p * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    row_ok = rows < P
    mask = row_ok[:, None] & (cols[None, :] < C)
    a = tl.load(a_ptr + rows * s_a).to(tl.float32)
    fg = tl.load(fg_ptr + rows[:, None] * s_fp + cols[None, :] * s_fc, mask=mask, other=0.0).to(tl.float32)
    bg = tl.load(bg_ptr + rows[:, None] * s_bp + cols[None, :] * s_bc, mask=mask, other=0.0).to(tl.float32)
    out = fg * a[:, None] + bg * (1.0 - a[:, None])
    tl.store(out_ptr + rows[:, None] * s_op + cols[None, :] * s_oc, out.to(out_ptr.dtype.element_ty), mask=mask)


def alpha_over(fg, bg, alpha, BLOCK_P=64, BLOCK_C=32):
    P, C = fg.shape
    out = torch.empty((P, C), dtype=fg.dtype, device=fg.device)
    if P == 0 or C == 0:
        return out
    grid = (triton.cdiv(P, BLOCK_P), triton.cdiv(C, BLOCK_C))
    alpha_over_kernel[grid](fg, bg, alpha, out, P, C,
                            fg.stride(0), fg.stride(1), bg.stride(0), bg.stride(1), alpha.stride(0),
                            out.stride(0), out.stride(1), BLOCK_P=BLOCK_P, BLOCK_C=BLOCK_C)
    return out


def reference(fg, bg, alpha):
    a = alpha[:, None]
    return fg * a + bg * (1 - a)


BUG_CLASS = "edge-guard"

spec = kcheck.Spec(
    name="hx18_alpha_over",
    kernel=alpha_over,
    reference=reference,
    inputs=[kcheck.Tensor("P", "C", name="fg"), kcheck.Tensor("P", "C", name="bg"), kcheck.Tensor("P", name="alpha")],
    dims={"P": kcheck.Dim(nominal=256), "C": kcheck.Dim(nominal=64)},
    configs=[{"BLOCK_P": 64, "BLOCK_C": 32}, {"BLOCK_P": 16, "BLOCK_C": 64}],
)

"""Per-electrode calibration of a multichannel recording (EEG/ECoG): y[b, c, l] = (x[b, c, l] - offset[c]) * gain[c]
for B trials x C channels x L samples.

Each program takes one trial and a square BLOCK x BLOCK tile of (channel, sample); the channel's offset and gain
are loaded once per tile and broadcast along the samples. fp32 math, any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def calibrate_kernel(x_ptr, off_ptr, gain_ptr, y_ptr, C, L, s_xb, s_xc, s_xl, s_o, s_g, s_yb, s_yc, s_yl,
                     BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cs = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ls = tl.program_id(2).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    c_mask = cs < C
    mask = c_mask[:, None] & (ls[None, :] < L)
    x = tl.load(x_ptr + b * s_xb + cs[:, None] * s_xc + ls[None, :] * s_xl, mask=mask, other=0.0).to(tl.float32)
    off = tl.load(off_ptr + cs * s_o, mask=c_mask, other=0.0).to(tl.float32)
    gain = tl.load(gain_ptr + cs * s_g, mask=c_mask, other=0.0).to(tl.float32)
    y = (x - off[:, None]) * gain[None, :]
    tl.store(y_ptr + b * s_yb + cs[:, None] * s_yc + ls[None, :] * s_yl, y.to(y_ptr.dtype.element_ty), mask=mask)


def electrode_calibrate(x, offset, gain, BLOCK=32):
    B, C, L = x.shape
    y = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    if B == 0 or C == 0 or L == 0:
        return y
    grid = (B, triton.cdiv(C, BLOCK), triton.cdiv(L, BLOCK))
    calibrate_kernel[grid](x, offset, gain, y, C, L, x.stride(0), x.stride(1), x.stride(2), offset.stride(0),
                           gain.stride(0), y.stride(0), y.stride(1), y.stride(2), BLOCK=BLOCK)
    return y


def reference(x, offset, gain):
    return (x - offset[None, :, None]) * gain[None, :, None]


spec = kcheck.Spec(
    name="electrode_gain_offset",
    kernel=electrode_calibrate,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("C", name="offset"),
            kcheck.Tensor("C", name="gain")],
    dims={"B": kcheck.Dim(nominal=3, max=8), "C": kcheck.Dim(nominal=40), "L": kcheck.Dim(nominal=100)},
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

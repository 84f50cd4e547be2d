"""Microphone array calibration (acoustics): a batch of B recordings from a C-microphone array, [B, C, L]
(channels first, L samples each), is corrected per microphone for its DC offset and its sensitivity deviation in
dB,

    y[b, c, l] = (x[b, c, l] - offset[c]) * 10^(-sens_db[c] / 20)

An elementwise kernel over the flattened (contiguous) batch: each program handles BLOCK samples, finds each
sample's microphone from its flat index and gathers that microphone's two constants (10^(-s/20) as
exp(-s * ln(10) / 20), in fp32). int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"

LN10_OVER_20 = 0.11512925464970229


@triton.jit
def mic_calibration_kernel(x_ptr, off_ptr, sens_ptr, y_ptr, total, C, L, ln10_over_20, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < total
    mic = offs % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dc = tl.load(off_ptr + mic, mask=mask, other=0.0).to(tl.float32)
    sens = tl.load(sens_ptr + mic, mask=mask, other=0.0).to(tl.float32)
    y = (x - dc) * tl.exp(-sens * ln10_over_20)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def mic_array_calibration(x: torch.Tensor, offset: torch.Tensor, sens_db: torch.Tensor,
                          BLOCK: int = 1024) -> torch.Tensor:
    B, C, L = x.shape
    x = x.contiguous()
    offset = offset.contiguous()
    sens_db = sens_db.contiguous()
    y = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    total = x.numel()
    if total == 0:
        return y
    mic_calibration_kernel[(triton.cdiv(total, BLOCK),)](x, offset, sens_db, y, total, C, L, LN10_OVER_20,
                                                         BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, offset: torch.Tensor, sens_db: torch.Tensor) -> torch.Tensor:
    return (x - offset[None, :, None]) * torch.pow(10.0, -sens_db / 20.0)[None, :, None]


spec = kcheck.Spec(
    name="hx38_mic_array_calibration",
    kernel=mic_array_calibration,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="recordings"), kcheck.Tensor("C", name="dc_offset"),
            kcheck.Tensor("C", name="sensitivity_db")],
    dims={"B": kcheck.Dim(nominal=3, max=16), "C": kcheck.Dim(nominal=8, max=64),
          "L": kcheck.Dim(nominal=2000)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

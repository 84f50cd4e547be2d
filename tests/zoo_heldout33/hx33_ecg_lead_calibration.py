"""Multi-lead ECG calibration: raw ADC samples to millivolts, per lead::

    mv[b, c, t] = (adc[b, c, t] - baseline[c]) * resolution[c]

adc is [B, C, T] (records, leads, samples); baseline is each lead's ADC zero and resolution its mV per ADC unit.
The launcher makes the record contiguous and a 1-D grid of BLOCK elements covers it; each element finds its lead
from its flat offset. Arithmetic in fp32, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-axis"


@triton.jit
def ecg_calibration_kernel(x_ptr, base_ptr, res_ptr, out_ptr, total, C, T, stride_base, stride_res,
                           BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < total
    lead = offs % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    base = tl.load(base_ptr + lead * stride_base, mask=mask, other=0.0).to(tl.float32)
    res = tl.load(res_ptr + lead * stride_res, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, ((x - base) * res).to(out_ptr.dtype.element_ty), mask=mask)


def ecg_lead_calibration(adc: torch.Tensor, baseline: torch.Tensor, resolution: torch.Tensor,
                         BLOCK: int = 1024) -> torch.Tensor:
    B, C, T = adc.shape
    x = adc.contiguous()
    out = torch.empty((B, C, T), dtype=adc.dtype, device=adc.device)
    total = x.numel()
    if total:
        ecg_calibration_kernel[(triton.cdiv(total, BLOCK),)](x, baseline, resolution, out, total, C, T,
                                                            baseline.stride(0), resolution.stride(0), BLOCK=BLOCK)
    return out


def reference(adc: torch.Tensor, baseline: torch.Tensor, resolution: torch.Tensor) -> torch.Tensor:
    return (adc - baseline[None, :, None]) * resolution[None, :, None]


spec = kcheck.Spec(
    name="ecg_lead_calibration",
    kernel=ecg_lead_calibration,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "T", name="adc"), kcheck.Tensor("C", name="baseline"),
            kcheck.Tensor("C", name="resolution")],
    dims={"B": kcheck.Dim(nominal=4, max=16), "C": kcheck.Dim(nominal=12, max=16), "T": kcheck.Dim(nominal=500)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

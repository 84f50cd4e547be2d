"""Ring modulator with a dry/wet mix (audio effect).

y[n] = x[n] * ((1 - mix) + mix * sin(2*pi * (n mod period) / period + phase))

The carrier is given by its period in samples (a mode: 48 samples is a 1 kHz carrier at 48 kHz), so the carrier
phase is reduced exactly in integers before the fp32 sine and stays accurate for long signals. One program per
BLOCK samples, int64 offsets.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'edge-guard'


@triton.jit
def ring_mod_kernel(x_ptr, out_ptr, n, period, phase, mix, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs).to(tl.float32)
    k = (offs % period).to(tl.float32)
    carrier = tl.sin(k * (6.283185307179586 / period) + phase)
    y = x * ((1.0 - mix) + mix * carrier)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def ring_modulator(x: torch.Tensor, phase: float, mix: float, period: int = 48, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        ring_mod_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, period, phase, mix, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, phase: float, mix: float, period: int = 48) -> torch.Tensor:
    k = (torch.arange(x.shape[0]) % period).to(x.dtype)
    carrier = torch.sin(k * (2 * math.pi / period) + phase)
    return x * ((1.0 - mix) + mix * carrier)


spec = kcheck.Spec(
    name="hx27_ring_modulator",
    kernel=ring_modulator,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Scalar(0.3, name="phase"), kcheck.Scalar(0.75, name="mix")],
    params={"period": [48, 37]},
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

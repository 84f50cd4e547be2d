"""Audio waveshaper: y = tanh(drive * x) / tanh(drive), a soft-clipping distortion normalised so that a full-scale
input (|x| = 1) stays at full scale. 1-D signal, BLOCK samples per program, computed in fp32, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def _tanh(v):
    # tanh(v) = sign(v) * (1 - e) / (1 + e) with e = exp(-2|v|): no overflow for large |v|; below |v| = 0.1, where
    # 1 - e cancels, its Taylor series (error < 1e-10 relative)
    a = tl.abs(v)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(v < 0, -t, t)
    v2 = v * v
    series = v * (1.0 + v2 * (-1.0 / 3.0 + v2 * (2.0 / 15.0 + v2 * (-17.0 / 315.0))))
    return tl.where(a < 0.1, series, t)


@triton.jit
def waveshaper_kernel(x_ptr, y_ptr, n, drive, inv_norm, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs).to(tl.float32)
    y = _tanh(drive * x) * inv_norm
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def waveshaper(x: torch.Tensor, drive: float, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        inv_norm = 1.0 / float(torch.tanh(torch.tensor(drive, dtype=torch.float64)))
        waveshaper_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, drive, inv_norm, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, drive: float) -> torch.Tensor:
    return torch.tanh(drive * x) / torch.tanh(torch.tensor(drive, dtype=x.dtype))


spec = kcheck.Spec(
    name="hx19_tanh_waveshaper",
    kernel=waveshaper,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x")],
    params={"drive": [2.0, 0.5]},
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

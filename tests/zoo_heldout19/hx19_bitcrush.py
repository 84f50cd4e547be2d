"""Audio bit-crusher: requantise a signal to `bits` bits of resolution over [-1, 1], rounding half up:
y = floor(x * q + 0.5) / q with q = 2^(bits - 1). Values outside [-1, 1] keep their range (no clipping).

x is a 1-D signal; each program handles BLOCK samples in fp32 (x * q is exact: q is a power of two)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def bitcrush_kernel(x_ptr, y_ptr, n, q, inv_q, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.floor(x * q + 0.5) * inv_q
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def bitcrush(x: torch.Tensor, bits: int, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        q = float(2 ** (bits - 1))
        bitcrush_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, q, 1.0 / q, BLOCK=BLOCK)
    return x


def reference(x: torch.Tensor, bits: int) -> torch.Tensor:
    q = 2.0 ** (bits - 1)
    return torch.floor(x * q + 0.5) / q


spec = kcheck.Spec(
    name="hx19_bitcrush",
    kernel=bitcrush,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="signal")],
    params={"bits": [8, 4]},
    dims={"N": kcheck.Dim(nominal=8000)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

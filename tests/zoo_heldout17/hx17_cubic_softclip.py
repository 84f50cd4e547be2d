"""Cubic soft clipper for audio samples, applied in place.

y = x - x**3 / 3 for |x| <= 1, and sign(x) * 2/3 beyond: a smooth saturating waveshaper (guitar-amp style
distortion). One program per BLOCK samples of the flattened signal; computed in fp32, written back into x.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def softclip_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    c = tl.where(x > 1.0, 1.0, tl.where(x < -1.0, -1.0, x))
    y = c - c * c * c / 3.0
    tl.store(x_ptr + offs, y.to(x_ptr.dtype.element_ty))


def cubic_softclip_(x, BLOCK=256):
    n = x.numel()
    if n:
        softclip_kernel[(triton.cdiv(n, BLOCK),)](x, n, BLOCK=BLOCK)
    return x


def reference(x):
    c = x.clamp(-1.0, 1.0)
    return c - c ** 3 / 3.0


spec = kcheck.Spec(
    name="hx17_cubic_softclip",
    kernel=cubic_softclip_,
    reference=reference,
    inputs=[kcheck.Tensor("N", mutated=True)],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 256}, {"BLOCK": 1024}],
)

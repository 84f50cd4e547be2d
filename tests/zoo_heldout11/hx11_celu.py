"""CELU activation, y = x for x > 0 else alpha * (exp(x / alpha) - 1), on a [B, S, D] activation.

exp(u) - 1 cancels for small |u|, so below |u| < 0.1 the kernel uses its Taylor series (degree 5: error ~1e-9
relative), which also keeps subnormal inputs exact. Flat kernel over a contiguous copy, fp32 math, int64 offsets.

Planted bug (no-op): the result is stored through x_ptr (as an in-place variant of the kernel does) instead of
out_ptr: the returned tensor is never written.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def celu_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = x / alpha
    series = u * (1.0 + u * (0.5 + u * (1.0 / 6.0 + u * (1.0 / 24.0 + u * (1.0 / 120.0)))))
    em1 = tl.where(tl.abs(u) < 0.1, series, tl.exp(u) - 1.0)
    y = tl.where(x > 0, x, alpha * em1)
    tl.store(x_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def celu(x, alpha=1.0, BLOCK=1024):
    xc = x.contiguous()
    out = torch.empty_like(xc)
    n = xc.numel()
    if n:
        celu_kernel[(triton.cdiv(n, BLOCK),)](xc, out, n, alpha, BLOCK=BLOCK)
    return out


def reference(x, alpha=1.0):
    return torch.nn.functional.celu(x, alpha=alpha)


spec = kcheck.Spec(
    name="hx11_celu",
    kernel=celu,
    reference=reference,
    inputs=[kcheck.Tensor("B", "S", "D")],
    dims={"B": kcheck.Dim(nominal=2), "S": kcheck.Dim(nominal=64), "D": kcheck.Dim(nominal=96)},
    params={"alpha": [1.0, 0.5]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "no-op"  # stores into the input, output never written

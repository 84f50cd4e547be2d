"""Hard-sigmoid gating, as used in MobileNetV3-style squeeze-excite blocks: out = x * hardsigmoid(gate), the
hard sigmoid being the piecewise-linear stand-in for the logistic sigmoid (a line through (0, 1/2) clamped to
[0, 1]). Elementwise over two tensors of one shape, walked flat, BLOCK elements per program, computed in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def hardsigmoid_gate_kernel(x_ptr, g_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    hs = tl.minimum(tl.maximum(g * 0.2 + 0.5, 0.0), 1.0)
    tl.store(out_ptr + offs, (x * hs).to(out_ptr.dtype.element_ty), mask=mask)


def hardsigmoid_gate(x, gate, BLOCK=1024):
    x, gate = x.contiguous(), gate.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        hardsigmoid_gate_kernel[(triton.cdiv(n, BLOCK),)](x, gate, out, n, BLOCK=BLOCK)
    return out


def reference(x, gate):
    return x * torch.nn.functional.hardsigmoid(gate)


spec = kcheck.Spec(
    name="hx7_hardsigmoid_gate",
    kernel=hardsigmoid_gate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="gate")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "wrong-constant"

"""SwiGLU gate of a gated MLP: out = silu(gate) * up, elementwise over the flattened activations, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def swiglu_kernel(gate_ptr, up_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs <= n
    g = tl.load(gate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu(gate, up, BLOCK=1024):
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    if n:
        swiglu_kernel[(triton.cdiv(n, BLOCK),)](gate, up, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx2_swiglu",
    kernel=swiglu,
    reference=lambda g, u: torch.nn.functional.silu(g) * u,
    inputs=[kcheck.Tensor("M", "H"), kcheck.Tensor("M", "H")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "H": kcheck.Dim(nominal=352)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "off-by-one-mask"

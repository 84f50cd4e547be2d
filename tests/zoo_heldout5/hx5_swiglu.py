"""SwiGLU gate of a gated MLP: out = silu(gate) * up, elementwise over [M, N] activations.

The launcher flattens both operands (made contiguous) and runs one program per BLOCK elements. silu is computed
in fp32 as g * sigmoid(g); the result comes back in the activations' dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def swiglu_kernel(gate_ptr, up_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    g = tl.load(gate_ptr + offs).to(tl.float32)
    u = tl.load(up_ptr + offs).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty))


def swiglu(gate: torch.Tensor, up: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    n = gate.numel()
    if n == 0:
        return out
    swiglu_kernel[(n // BLOCK,)](gate, up, out, BLOCK=BLOCK)
    return out


def reference(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(gate) * up


spec = kcheck.Spec(
    name="hx5_swiglu",
    kernel=swiglu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="gate"), kcheck.Tensor("M", "N", name="up")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=2048)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "tail-tile-dropped"

"""SwiGLU activation of an MLP: out = silu(gate) * up, elementwise over (M, N), fp32 math, output in the input
dtype. Flat 1-D launch over contiguous copies, BLOCK elements per program, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"
GPU_ONLY = False


@triton.jit
def _swiglu_kernel(g_ptr, u_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = g * tl.sigmoid(g) * u
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu(gate: torch.Tensor, up: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    if n == 0:
        return out
    grid = (max(1, n // BLOCK),)
    _swiglu_kernel[grid](gate, up, out, n, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="ho_swiglu",
    kernel=swiglu,
    reference=lambda g, u: torch.nn.functional.silu(g) * u,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=(2880,)), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 4096}],
)

"""SwiGLU activation of an MLP: out = silu(gate) * up, elementwise over two (M, H) projections. The launch is flat
over the M*H outputs (one program per BLOCK of them); each lane finds its row and column, so padded rows of either
input are read through their strides. Computed in fp32, stored in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def swiglu_kernel(g_ptr, u_ptr, out_ptr, n, H, stride_gm, stride_gh, stride_um, stride_uh, stride_om, stride_oh,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // H
    col = offs % H
    g = tl.load(g_ptr + row * stride_gm + col * stride_gh, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + row * stride_um + col * stride_uh, mask=mask, other=0.0).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(out_ptr + row * stride_om + col * stride_oh, y.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu(gate: torch.Tensor, up: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    M, H = gate.shape
    out = torch.empty((M, H), dtype=gate.dtype, device=gate.device)
    n = M * H
    if n:
        swiglu_kernel[(triton.cdiv(n, BLOCK),)](gate, up, out, n, H, gate.stride(0), gate.stride(1),
                                               up.stride(0), up.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx3_swiglu",
    kernel=swiglu,
    reference=lambda gate, up: torch.nn.functional.silu(gate) * up,
    inputs=[kcheck.Tensor("M", "H", name="gate"), kcheck.Tensor("M", "H", name="up")],
    dims={"M": kcheck.Dim(nominal=128), "H": kcheck.Dim(nominal=1024)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 512}],
)

BUG_CLASS = "int32-overflow"

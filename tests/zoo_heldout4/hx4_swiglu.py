"""SwiGLU activation of an MLP: out = silu(gate) * up for gate, up of shape [M, N], computed in fp32 and stored in
the input dtype. 2-D tiles of BLOCK_M x BLOCK_N."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def swiglu_kernel(g_ptr, u_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    offs = rows[:, None] * N + cols[None, :]
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu(gate, up, BLOCK_M=16, BLOCK_N=128):
    M, N = gate.shape
    out = torch.empty((M, N), dtype=gate.dtype, device=gate.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    swiglu_kernel[grid](gate, up, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx4_swiglu",
    kernel=swiglu,
    reference=lambda gate, up: torch.nn.functional.silu(gate) * up,
    inputs=[kcheck.Tensor("M", "N", name="gate"), kcheck.Tensor("M", "N", name="up")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 64, "BLOCK_N": 32}],
)

BUG_CLASS = "stride-assumption"

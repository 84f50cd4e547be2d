"""SwiGLU activation of an MLP's two projections: out = silu(gate) * up, rows of [M, N], several rows per program.

Computed in fp32, stored in the input dtype. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def swiglu_kernel(g_ptr, u_ptr, o_ptr, M, N, stride_gm, stride_gn, stride_um, stride_un, stride_om, stride_on,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    g = tl.load(g_ptr + rows[:, None] * stride_gm + cols[None, :] * stride_gn, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + rows[:, None] * stride_um + cols[None, :] * stride_un, mask=mask, other=0.0).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(o_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(o_ptr.dtype.element_ty))


def swiglu(gate: torch.Tensor, up: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = gate.shape
    out = torch.empty((M, N), dtype=gate.dtype, device=gate.device)
    if M == 0 or N == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    swiglu_kernel[(triton.cdiv(M, block_m),)](
        gate, up, out, M, N, gate.stride(0), gate.stride(1), up.stride(0), up.stride(1), out.stride(0),
        out.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(gate) * up


BUG_CLASS = "edge-guard"

spec = kcheck.Spec(
    name="hx13_swiglu",
    kernel=swiglu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="gate"), kcheck.Tensor("M", "N", name="up")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, max=4096, real=(2880,))},
    configs=[{"TILE": 4096}, {"TILE": 1024}],
)

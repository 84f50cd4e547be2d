"""GEGLU activation of a gated MLP on the fused up-projection: x is [M, 2H] holding the gate in its first H
columns and the value in its last H; out[m, j] = gelu(x[m, j]) * x[m, H + j], with the exact (erf) GELU.

Programs tile (BLOCK_M rows, BLOCK_H columns of the output), reading the gate and the value halves of each row
side by side; fp32 math, output [M, H] in the input dtype; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def geglu_kernel(x_ptr, out_ptr, M, H, stride_om, stride_oh, BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < H)[None, :]
    x_row = x_ptr + rows[:, None] * (2 * H)
    gate = tl.load(x_row + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    value = tl.load(x_row + H + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    gelu = 0.5 * gate * (1.0 + tl.erf(gate * 0.7071067811865476))
    y = (gelu * value).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_oh, y, mask=mask)


def geglu(x: torch.Tensor, BLOCK_M: int = 16, BLOCK_H: int = 256) -> torch.Tensor:
    M, K = x.shape
    H = K // 2
    out = torch.empty((M, H), dtype=x.dtype, device=x.device)
    if M == 0 or H == 0:
        return out
    block_h = min(BLOCK_H, triton.next_power_of_2(H))
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(H, block_h))
    geglu_kernel[grid](x, out, M, H, out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_H=block_h)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    gate, value = x.chunk(2, dim=-1)
    return torch.nn.functional.gelu(gate) * value


spec = kcheck.Spec(
    name="hx5_geglu",
    kernel=geglu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K")],
    # K = 2H is even; grid axis 1 holds the column tiles (at most 65535): K stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=1024, multiple_of=2, large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_H": 256}, {"BLOCK_M": 4, "BLOCK_H": 64}],
)

BUG_CLASS = "stride-assumption"

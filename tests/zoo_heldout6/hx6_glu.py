"""Gated linear unit over the last dimension, torch.nn.functional.glu(x, dim=-1): x = [a | b] split in halves,
y = a * sigmoid(b). x is [M, 2H], y is [M, H]; BLOCK_M x BLOCK_H tiles, fp32 math, returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def glu_kernel(x_ptr, out_ptr, M, H, BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < H)[None, :]
    x_row = x_ptr + rows[:, None] * (2 * H)
    a = tl.load(x_row + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_row + H + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    y = a / (1.0 + tl.exp(-b))
    tl.store(out_ptr + rows[:, None] * H + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def glu(x: torch.Tensor, BLOCK_M: int = 16, BLOCK_H: int = 128) -> torch.Tensor:
    M, D = x.shape
    H = D // 2
    out = torch.empty((M, H), dtype=x.dtype, device=x.device)
    if M and H:
        glu_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(H, BLOCK_H))](x, out, M, H, BLOCK_M=BLOCK_M, BLOCK_H=BLOCK_H)
    return out


spec = kcheck.Spec(
    name="hx6_glu",
    kernel=glu,
    reference=lambda x: torch.nn.functional.glu(x, dim=-1),
    inputs=[kcheck.Tensor("M", "D")],
    dims={"M": kcheck.Dim(nominal=128), "D": kcheck.Dim(nominal=1024, multiple_of=2)},  # glu halves D
    configs=[{"BLOCK_M": 16, "BLOCK_H": 128}, {"BLOCK_M": 4, "BLOCK_H": 512}],
)

BUG_CLASS = "stride-assumption"

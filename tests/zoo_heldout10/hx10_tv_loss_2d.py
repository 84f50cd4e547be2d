"""Anisotropic total-variation loss of an image: sum |x[h + 1, w] - x[h, w]| + sum |x[h, w + 1] - x[h, w]|.

Programs take BLOCK_H rows each (the row below the block is read for the vertical differences); each program's
partial sum in fp32 is stored into a one-element fp32 accumulator, returned as a 0-d fp32 tensor.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def tv_kernel(x_ptr, acc_ptr, H, W, sh, sw, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H)
    cols = tl.arange(0, BLOCK_W).to(tl.int64)
    rmask = rows < H
    cmask = cols < W
    ptrs = x_ptr + rows[:, None] * sh + cols[None, :] * sw
    x = tl.load(ptrs, mask=rmask[:, None] & cmask[None, :], other=0.0).to(tl.float32)
    down_mask = (rows + 1 < H)[:, None] & cmask[None, :]
    below = tl.load(ptrs + sh, mask=down_mask, other=0.0).to(tl.float32)
    right_mask = rmask[:, None] & (cols + 1 < W)[None, :]
    right = tl.load(ptrs + sw, mask=right_mask, other=0.0).to(tl.float32)
    dv = tl.where(down_mask, tl.abs(below - x), 0.0)
    dh = tl.where(right_mask, tl.abs(right - x), 0.0)
    part = tl.sum(tl.sum(dv + dh, axis=1), axis=0)
    tl.store(acc_ptr, part)


def tv_loss(x: torch.Tensor, BLOCK_H: int = 64) -> torch.Tensor:
    H, W = x.shape
    acc = torch.zeros(1, dtype=torch.float32, device=x.device)
    if H and W:
        block_w = triton.next_power_of_2(W)
        block_h = max(1, min(BLOCK_H, 8192 // block_w))
        tv_kernel[(triton.cdiv(H, block_h),)](x, acc, H, W, x.stride(0), x.stride(1), BLOCK_H=block_h, BLOCK_W=block_w)
    return acc[0]


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x[1:, :] - x[:-1, :]).abs().sum() + (x[:, 1:] - x[:, :-1]).abs().sum()


spec = kcheck.Spec(
    name="hx10_tv_loss_2d",
    kernel=tv_loss,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W")],
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=64, max=4096)},
    reduce=["H", "W"],
    output_dtypes=[torch.float32],
)

BUG_CLASS = "missing-atomic"

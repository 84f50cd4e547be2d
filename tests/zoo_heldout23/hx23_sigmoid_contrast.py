"""Sigmoidal contrast curve for images (as ImageMagick's -sigmoidal-contrast), normalized so that 0 maps to 0 and
1 to 1: with s(v) = 1 / (1 + exp(-GAIN * (v - PIVOT))),

    y = (s(x) - s(0)) / (s(1) - s(0))

A 2-D tile kernel over an [H, W] image with any strides, 1-D grid over the tiles; fp32 arithmetic (the two end
values are computed once on the host in float64); the result is written to a new tensor in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

GAIN = 8.0
PIVOT = 0.4


def _s(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-GAIN * (v - PIVOT)))


@triton.jit
def sigmoid_contrast_kernel(x_ptr, out_ptr, H, W, tiles_w, sxh, sxw, soh, sow, gain, pivot, s0, inv_span,
                            BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    th = pid // tiles_w
    tw = pid % tiles_w
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxh + cols[None, :] * sxw, mask=mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-gain * (x - pivot)))
    y = (s - s0) * inv_span
    tl.store(out_ptr + rows[:, None] * soh + cols[None, :] * sow, y.to(out_ptr.dtype.element_ty), mask=mask)


def sigmoid_contrast(x: torch.Tensor, BLOCK_H: int = 32, BLOCK_W: int = 32) -> torch.Tensor:
    H, W = x.shape
    out = torch.empty((H, W), dtype=x.dtype, device=x.device)
    if H == 0 or W == 0:
        return out
    tiles_w = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * tiles_w,)
    sigmoid_contrast_kernel[grid](x, out, H, W, tiles_w, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                  GAIN, PIVOT, _s(0.0), 1.0 / (_s(1.0) - _s(0.0)), BLOCK_H=BLOCK_H,
                                  BLOCK_W=BLOCK_W)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    s = torch.sigmoid(GAIN * (x - PIVOT))
    return (s - _s(0.0)) / (_s(1.0) - _s(0.0))


BUG_CLASS = "no-op"

spec = kcheck.Spec(
    name="hx23_sigmoid_contrast",
    kernel=sigmoid_contrast,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="image")],
    dims={"H": kcheck.Dim(nominal=96, real=()), "W": kcheck.Dim(nominal=160, real=())},
    configs=[{"BLOCK_H": 32, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 128}],
)

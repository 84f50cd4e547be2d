"""Rotate an image by 90 degrees counter-clockwise (torch.rot90(x, 1, (0, 1))): for x [H, W] the output is
[W, H] with out[i, j] = x[j, W - 1 - i].

A 2-D tile kernel over the output: the 1-D grid enumerates output tiles (BLOCK_I output rows by BLOCK_J output
columns); each tile gathers its source pixels through the input's strides (any layout). A pure data movement:
exact in every dtype. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def rot90_kernel(x_ptr, out_ptr, H, W, tiles_j, sxh, sxw, soi, soj, BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    ti = pid // tiles_j
    tj = pid % tiles_j
    i = ti * BLOCK_I + tl.arange(0, BLOCK_I).to(tl.int64)  # output row = input column W - 1 - i
    j = tj * BLOCK_J + tl.arange(0, BLOCK_J).to(tl.int64)  # output column = input row j
    mask = (i < W)[:, None] & (j < H)[None, :]
    src = x_ptr + j[None, :] * sxw + (W - 1 - i)[:, None] * sxh
    v = tl.load(src, mask=mask, other=0.0)
    tl.store(out_ptr + i[:, None] * soi + j[None, :] * soj, v, mask=mask)


def rotate90(x: torch.Tensor, BLOCK_I: int = 32, BLOCK_J: int = 32) -> torch.Tensor:
    H, W = x.shape
    out = torch.empty((W, H), dtype=x.dtype, device=x.device)
    if H == 0 or W == 0:
        return out
    tiles_j = triton.cdiv(H, BLOCK_J)
    grid = (triton.cdiv(W, BLOCK_I) * tiles_j,)
    rot90_kernel[grid](x, out, H, W, tiles_j, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                       BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.rot90(x, 1, (0, 1))


BUG_CLASS = "index-transposition"

spec = kcheck.Spec(
    name="hx23_rotate90",
    kernel=rotate90,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="image")],
    dims={"H": kcheck.Dim(nominal=96, real=()), "W": kcheck.Dim(nominal=160, real=())},
    configs=[{"BLOCK_I": 32, "BLOCK_J": 32}, {"BLOCK_I": 16, "BLOCK_J": 64}],
)

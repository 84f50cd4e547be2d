"""Image levels adjustment (as in photo editors): map the input range [BLACK, WHITE] to [0, 1], clip, then apply
the midtone gamma: y = clip((x - BLACK) / (WHITE - BLACK), 0, 1) ** (1 / GAMMA).

A 2-D tile kernel over an [H, W] image with any strides: the 1-D grid enumerates (tile row, tile column) pairs,
the tile count per row is passed by the launcher. Computed in fp32 (the power as exp2(log2(u) / GAMMA), exactly 0
at u = 0), returned in the input dtype; NaN stays NaN. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BLACK = 0.05
WHITE = 0.95
GAMMA = 2.2


@triton.jit
def levels_kernel(x_ptr, out_ptr, H, W, tiles_w, sxh, sxw, soh, sow, black, inv_range, inv_gamma,
                  BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    th = pid // tiles_w
    tw = pid % tiles_w
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxh + cols[None, :] * sxw).to(tl.float32)
    u = tl.clamp((x - black) * inv_range, 0.0, 1.0, propagate_nan=tl.PropagateNan.ALL)
    y = tl.exp2(tl.log2(u) * inv_gamma)
    tl.store(out_ptr + rows[:, None] * soh + cols[None, :] * sow, y.to(out_ptr.dtype.element_ty), mask=mask)


def levels_adjust(x: torch.Tensor, BLOCK_H: int = 32, BLOCK_W: int = 32) -> torch.Tensor:
    H, W = x.shape
    out = torch.empty((H, W), dtype=x.dtype, device=x.device)
    if H == 0 or W == 0:
        return out
    tiles_w = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * tiles_w,)
    levels_kernel[grid](x, out, H, W, tiles_w, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                        BLACK, 1.0 / (WHITE - BLACK), 1.0 / GAMMA, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return ((x - BLACK) / (WHITE - BLACK)).clamp(0.0, 1.0) ** (1.0 / GAMMA)


BUG_CLASS = "edge-guard"

spec = kcheck.Spec(
    name="hx23_levels_adjust",
    kernel=levels_adjust,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="image")],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_H": 32, "BLOCK_W": 32}, {"BLOCK_H": 16, "BLOCK_W": 64}],
)

"""Asinh intensity stretch for astronomical images (Lupton et al.): y = asinh(x / SOFT) / asinh(1 / SOFT), linear
near 0 and logarithmic for bright pixels, odd in x.

asinh(z) is computed in fp32 from |z| as log(a + sqrt(a^2 + 1)), with the series a - a^3/6 + 3a^5/40 below
a = 0.05 (where the log form loses relative precision) and log(a) + log(2) above a = 1e4 (where a^2 would
overflow), and the sign put back. A 2-D tile kernel over an [H, W] image with any strides; the 1-D grid
enumerates the tiles, offsets are int64.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

SOFT = 0.1


@triton.jit
def asinh_stretch_kernel(x_ptr, out_ptr, H, W, tiles_w, sxh, sxw, soh, sow, inv_soft, inv_norm,
                         BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0)
    th = pid // tiles_w
    tw = pid % tiles_w
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxh + cols[None, :] * sxw, mask=mask, other=0.0).to(tl.float32)
    z = x * inv_soft
    a = tl.abs(z)
    a2 = a * a
    series = a * (1.0 - a2 * (1.0 / 6.0 - a2 * (3.0 / 40.0)))
    big = tl.log(a) + 0.6931471805599453
    mid = tl.log(a + tl.sqrt(a2 + 1.0))
    r = tl.where(a < 0.05, series, tl.where(a > 1.0e4, big, mid))
    y = tl.where(z < 0.0, -r, r) * inv_norm
    tl.store(out_ptr + rows[:, None] * soh + cols[None, :] * sow, y.to(out_ptr.dtype.element_ty), mask=mask)


def asinh_stretch(x: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 64) -> torch.Tensor:
    H, W = x.shape
    out = torch.empty((H, W), dtype=x.dtype, device=x.device)
    if H == 0 or W == 0:
        return out
    tiles_w = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * tiles_w,)
    asinh_stretch_kernel[grid](x, out, H, W, tiles_w, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                               1.0 / SOFT, 1.0 / math.asinh(1.0 / SOFT), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.asinh(x / SOFT) / math.asinh(1.0 / SOFT)


BUG_CLASS = "int32-overflow"

spec = kcheck.Spec(
    name="hx23_asinh_stretch",
    kernel=asinh_stretch,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="image")],
    dims={"H": kcheck.Dim(nominal=96, real=()), "W": kcheck.Dim(nominal=200, real=())},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 32, "BLOCK_W": 32}],
)

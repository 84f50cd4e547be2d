"""Depthwise 3x3 convolution (cross-correlation, as nn.Conv2d computes it) with zero padding 1, one image [C, H, W]
(e.g. the three planes of an RGB image).

    y[c, i, j] = sum_{dy, dx in 0..2} w[c, dy, dx] * x[c, i + dy - 1, j + dx - 1]      (x = 0 outside the image)

One program per BLOCK_H x BLOCK_W output tile of one channel, on a 1-D grid over (channel, tile row, tile column);
each of the nine taps is a masked shifted load of the tile. fp32 accumulation, int64 offsets, strides honoured.
"""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def dwconv3x3_kernel(x_ptr, w_ptr, y_ptr, H, W, sxc, sxh, sxw, swc, swy, swx, syc, syh, syw, n_tiles, n_tw,
                     BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    c = pid // n_tiles
    t = pid % n_tiles
    rows = (t // n_tw) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = (t % n_tw) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    x_c = x_ptr + c * sxc
    acc = tl.zeros([BLOCK_H, BLOCK_W], dtype=tl.float32)
    for dy in tl.static_range(3):
        r = rows + (dy - 1)
        rmask = (r >= 0) & (r < H)
        for dx in tl.static_range(3):
            q = cols + (dx - 1)
            m = rmask[:, None] & ((q >= 0) & (q < W))[None, :]
            wt = tl.load(w_ptr + c * swc + dy * swx + dx * swy).to(tl.float32)
            xv = tl.load(x_c + r[:, None] * sxh + q[None, :] * sxw, mask=m, other=0.0).to(tl.float32)
            acc += wt * xv
    omask = (rows < H)[:, None] & (cols < W)[None, :]
    tl.store(y_ptr + c * syc + rows[:, None] * syh + cols[None, :] * syw, acc.to(y_ptr.dtype.element_ty),
             mask=omask)


def dwconv3x3(x, w, BLOCK_H=32, BLOCK_W=64):
    C, H, W = x.shape
    y = torch.empty((C, H, W), dtype=x.dtype, device=x.device)
    if C == 0 or H == 0 or W == 0:
        return y
    n_th, n_tw = triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W)
    dwconv3x3_kernel[(C * n_th * n_tw,)](
        x, w, y, H, W, x.stride(0), x.stride(1), x.stride(2), w.stride(0), w.stride(1), w.stride(2),
        y.stride(0), y.stride(1), y.stride(2), n_th * n_tw, n_tw, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return y


def reference(x, w):
    C, H, W = x.shape
    xp = F.pad(x, (1, 1, 1, 1))
    y = torch.zeros_like(x)
    for dy in range(3):
        for dx in range(3):
            y = y + w[:, dy, dx, None, None] * xp[:, dy:dy + H, dx:dx + W]
    return y


spec = kcheck.Spec(
    name="hx22_dwconv3x3",
    kernel=dwconv3x3,
    reference=reference,
    inputs=[kcheck.Tensor("C", "H", "W", name="x"), kcheck.Tensor("C", 3, 3, name="weight")],
    dims={"C": kcheck.Dim(nominal=3, max=3, real=()), "H": kcheck.Dim(nominal=48, real=()),
          "W": kcheck.Dim(nominal=80, real=(224,))},
    configs=[{"BLOCK_H": 32, "BLOCK_W": 64}, {"BLOCK_H": 8, "BLOCK_W": 128}],
)

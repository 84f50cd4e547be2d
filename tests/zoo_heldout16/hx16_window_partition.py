"""Swin-Transformer window partition: x (B, H, W, C) channels-last -> windows (B * H/4 * W/4, 4, 4, C), window
(b, wh, ww) holding x[b, 4*wh + i, 4*ww + j, :] at [i, j]. One program per window copies its 16 x C slab in
BLOCK_C chunks; any input strides are honoured, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"

WS = 4


@triton.jit
def window_partition_kernel(x_ptr, out_ptr, H, W, C, sxb, sxh, sxw, sxc,
                            WS: tl.constexpr, BLOCK_C: tl.constexpr):
    win = tl.program_id(0).to(tl.int64)
    n_ww = W // WS
    n_wh = H // WS
    ww = win % n_ww
    wh = (win // n_ww) % n_wh
    b = win // (n_ww * n_wh)
    r = tl.arange(0, WS * WS).to(tl.int64)
    i = r // WS
    j = r % WS
    src = x_ptr + b * sxb + (wh * WS + j)[:, None] * sxh + (ww * WS + i)[:, None] * sxw
    dst = out_ptr + (win * WS * WS + r)[:, None] * C
    for c0 in range(0, C, BLOCK_C):
        c = c0 + tl.arange(0, BLOCK_C).to(tl.int64)
        m = (c < C)[None, :]
        v = tl.load(src + c[None, :] * sxc, mask=m, other=0.0)
        tl.store(dst + c[None, :], v, mask=m)


def window_partition(x: torch.Tensor, BLOCK_C: int = 128) -> torch.Tensor:
    B, H, W, C = x.shape
    n_win = B * (H // WS) * (W // WS)
    out = torch.empty((n_win, WS, WS, C), dtype=x.dtype, device=x.device)
    if n_win == 0 or C == 0:
        return out
    block_c = min(BLOCK_C, triton.next_power_of_2(C))
    window_partition_kernel[(n_win,)](x, out, H, W, C, x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                      WS=WS, BLOCK_C=block_c)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    B, H, W, C = x.shape
    return x.reshape(B, H // WS, WS, W // WS, WS, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, WS, WS, C)


spec = kcheck.Spec(
    name="hx16_window_partition",
    kernel=window_partition,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", "C")],
    dims={"B": kcheck.Dim(nominal=2, max=2), "H": kcheck.Dim(nominal=16, multiple_of=WS, max=16),
          "W": kcheck.Dim(nominal=8, multiple_of=WS, max=16), "C": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_C": 128}, {"BLOCK_C": 32}],
)

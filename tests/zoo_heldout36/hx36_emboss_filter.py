"""Computer graphics: emboss filter of a grayscale image, the 3x3 kernel [[-2, -1, 0], [-1, 1, 1], [0, 1, 2]]
with replicated borders. The kernel computes [BLOCK_H, BLOCK_W] tiles in fp32 into a contiguous staging image,
which is then copied into the caller's output (any dtype, any strides)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"

EMBOSS = ((-2.0, -1.0, 0.0), (-1.0, 1.0, 1.0), (0.0, 1.0, 2.0))


@triton.jit
def emboss_kernel(img_ptr, out_ptr, H, W, s_ih, s_iw, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid_h = tl.program_id(0).to(tl.int64)
    pid_w = tl.program_id(1).to(tl.int64)
    y = pid_h * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    x = pid_w * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (y < H)[:, None] & (x < W)[None, :]
    ym = tl.maximum(y - 1, 0)
    yp = tl.minimum(y + 1, H - 1)
    xm = tl.maximum(x - 1, 0)
    xp = tl.minimum(x + 1, W - 1)
    up = img_ptr + ym[:, None] * s_ih
    mid = img_ptr + y[:, None] * s_ih
    down = img_ptr + yp[:, None] * s_ih
    acc = -2.0 * tl.load(up + xm[None, :] * s_iw, mask=mask, other=0.0).to(tl.float32)
    acc -= tl.load(up + x[None, :] * s_iw, mask=mask, other=0.0).to(tl.float32)
    acc -= tl.load(mid + xm[None, :] * s_iw, mask=mask, other=0.0).to(tl.float32)
    acc += tl.load(mid + x[None, :] * s_iw, mask=mask, other=0.0).to(tl.float32)
    acc += tl.load(mid + xp[None, :] * s_iw, mask=mask, other=0.0).to(tl.float32)
    acc += tl.load(down + x[None, :] * s_iw, mask=mask, other=0.0).to(tl.float32)
    acc += 2.0 * tl.load(down + xp[None, :] * s_iw, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + y[:, None] * W + x[None, :], acc, mask=mask)


def emboss(img: torch.Tensor, out: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 32) -> None:
    H, W = img.shape
    if H == 0 or W == 0:
        return
    staging = torch.empty((H, W), dtype=torch.float32, device=img.device)
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    emboss_kernel[grid](img, staging, H, W, img.stride(0), img.stride(1), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)


def reference(img: torch.Tensor) -> torch.Tensor:
    H, W = img.shape
    p = torch.nn.functional.pad(img[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    out = torch.zeros_like(img)
    for i, row in enumerate(EMBOSS):
        for j, k in enumerate(row):
            if k:  # zero taps skipped (0 * inf would be NaN)
                out = out + k * p[i:i + H, j:j + W]
    return out


spec = kcheck.Spec(
    name="hx36_emboss_filter",
    kernel=emboss,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="img")],
    outputs=[kcheck.Tensor("H", "W")],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
    properties=[kcheck.props.linear()],
)

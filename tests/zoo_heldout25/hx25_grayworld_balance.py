"""Gray-world white balance of a batch of RGB images [B, 3, H, W]: each channel c of image b is scaled by
gain[b, c] = gray[b] / mean[b, c], where gray is the average of the three channel means, so the balanced image's
channels share one mean. A channel whose mean is 0 (a black frame, a saturated single-colour image) keeps gain 1.
Two launches: one program per (image, channel) sums its plane in [BLOCK_H, BLOCK_W] tiles (fp32) into a means
buffer; then one program per (image, pixel tile) computes the gains and scales the tile's three channels, the first
tile of each image also writing the gains (second output). Strides passed explicitly, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def channel_mean_kernel(img_ptr, mean_ptr, H, W, s_b, s_c, s_h, s_w, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1).to(tl.int64)
    base = img_ptr + b * s_b + c * s_c
    acc = tl.zeros([BLOCK_H, BLOCK_W], dtype=tl.float32)
    for h0 in range(0, H, BLOCK_H):
        rows = h0 + tl.arange(0, BLOCK_H).to(tl.int64)
        for w0 in range(0, W, BLOCK_W):
            cols = w0 + tl.arange(0, BLOCK_W).to(tl.int64)
            mask = (rows < H)[:, None] & (cols < W)[None, :]
            acc += tl.load(base + rows[:, None] * s_h + cols[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    tl.store(mean_ptr + b * 3 + c, tl.sum(tl.sum(acc, axis=1), axis=0) / (H * W))


@triton.jit
def apply_gains_kernel(img_ptr, mean_ptr, out_ptr, gain_ptr, H, W, s_b, s_c, s_h, s_w, s_ob, s_oc, s_oh, s_ow,
                       s_gb, s_gc, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    tile = tl.program_id(1).to(tl.int64)
    tiles_w = tl.cdiv(W, BLOCK_W)
    rows = (tile // tiles_w) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = (tile % tiles_w) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    ch = tl.arange(0, 4).to(tl.int64)
    means = tl.load(mean_ptr + b * 3 + ch, mask=ch < 3, other=0.0)
    gray = tl.sum(means, axis=0) / 3.0
    gains = gray / means
    if tile == 0:
        tl.store(gain_ptr + b * s_gb + ch * s_gc, gains.to(gain_ptr.dtype.element_ty), mask=ch < 3)
    for c in range(0, 3):
        g = tl.sum(tl.where(ch == c, gains, 0.0), axis=0)
        x = tl.load(img_ptr + b * s_b + c * s_c + rows[:, None] * s_h + cols[None, :] * s_w, mask=mask, other=0.0)
        y = x.to(tl.float32) * g
        tl.store(out_ptr + b * s_ob + c * s_oc + rows[:, None] * s_oh + cols[None, :] * s_ow,
                 y.to(out_ptr.dtype.element_ty), mask=mask)


def grayworld_balance(img, BLOCK_H=16, BLOCK_W=32):
    B, C, H, W = img.shape
    out = torch.empty_like(img, memory_format=torch.contiguous_format)
    gains = torch.empty((B, C), dtype=img.dtype, device=img.device)
    if B == 0:
        return out, gains
    if H == 0 or W == 0:
        return out, gains.fill_(1.0)
    means = torch.empty((B, 3), dtype=torch.float32, device=img.device)
    channel_mean_kernel[(B, 3)](img, means, H, W, *img.stride(), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    tiles = triton.cdiv(H, BLOCK_H) * triton.cdiv(W, BLOCK_W)
    apply_gains_kernel[(B, tiles)](img, means, out, gains, H, W, *img.stride(), *out.stride(), *gains.stride(),
                                   BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out, gains


def make_images(ctx):
    """Positive intensities with a per-image tint; the patterns give the extremes: `zeros` black frames,
    `constant` pure red frames (green and blue means 0), `ones` white frames, `large` values up to 100, `nonfinite`
    a NaN and an Inf pixel. A channels-last buffer in the strided layout."""
    B, H, W = ctx.dims["B"], ctx.dims["H"], ctx.dims["W"]
    g = ctx.generator
    if ctx.pattern == "zeros":
        img = torch.zeros((B, 3, H, W))
    elif ctx.pattern == "ones":
        img = torch.ones((B, 3, H, W))
    elif ctx.pattern == "constant":
        img = torch.zeros((B, 3, H, W))
        img[:, 0] = torch.rand((B, 1, 1), generator=g) + 0.5
    else:
        tint = 0.5 + torch.rand((B, 3, 1, 1), generator=g)
        img = torch.rand((B, 3, H, W), generator=g) * tint
        if ctx.pattern == "large":
            img *= 100.0
        elif ctx.pattern == "nonfinite" and img.numel() >= 2:
            img.view(-1)[img.numel() // 3] = float("nan")
            img.view(-1)[2 * img.numel() // 3] = float("inf")
    img = img.to(ctx.dtype)
    if ctx.layout == "strided":
        img = img.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    return img.to(ctx.device)


def reference(img):
    means = img.mean(dim=(2, 3))
    gray = means.mean(dim=1, keepdim=True)
    gains = torch.where(means != 0, gray / means, torch.ones_like(means))
    return img * gains[:, :, None, None], gains


spec = kcheck.Spec(
    name="hx25_grayworld_balance",
    kernel=grayworld_balance,
    reference=reference,
    inputs=[kcheck.Custom(make_images, name="img", dims=("B", 3, "H", "W"))],
    dims={"B": kcheck.Dim(nominal=4, max=6), "H": kcheck.Dim(nominal=48), "W": kcheck.Dim(nominal=64)},
    reduce=["H", "W"],
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
)

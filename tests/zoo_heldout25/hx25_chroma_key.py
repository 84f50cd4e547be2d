"""Chroma key (green screen): per pixel of a planar RGB image [3, H, W], the distance of its chroma from the key
colour's chroma gives a soft matte alpha = clamp((d - tolerance) / softness, 0, 1); the foreground is the
despilled colour (green limited to max(red, blue)) premultiplied by alpha. Two outputs: alpha [H, W] and the
premultiplied foreground [3, H, W]. 2-D tiles of BLOCK_H x BLOCK_W pixels on a 2-D grid, every stride passed
explicitly, all arithmetic in fp32; min/max ignore NaN as the GPU's do."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

# chroma of pure green (0, 1, 0) with Y = 0.299 R + 0.587 G + 0.114 B, Cb = B - Y, Cr = R - Y
KEY_CB = -0.587
KEY_CR = -0.587


@triton.jit
def chroma_key_kernel(img_ptr, alpha_ptr, fg_ptr, H, W, tolerance, softness,
                      s_ic, s_ih, s_iw, s_ah, s_aw, s_fc, s_fh, s_fw, key_cb, key_cr,
                      BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid_h = tl.program_id(0).to(tl.int64)
    pid_w = tl.program_id(1).to(tl.int64)
    rows = pid_h * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = pid_w * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    px = img_ptr + rows[:, None] * s_ih + cols[None, :] * s_iw
    r = tl.load(px, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(px + s_ic).to(tl.float32)
    b = tl.load(px + 2 * s_ic, mask=mask, other=0.0).to(tl.float32)
    y = 0.299 * r + 0.587 * g + 0.114 * b
    dcb = (b - y) - key_cb
    dcr = (r - y) - key_cr
    d = tl.sqrt(dcb * dcb + dcr * dcr)
    alpha = tl.minimum(tl.maximum((d - tolerance) / softness, 0.0), 1.0)
    g_despill = tl.minimum(g, tl.maximum(r, b))
    a_out = alpha_ptr + rows[:, None] * s_ah + cols[None, :] * s_aw
    tl.store(a_out, alpha.to(alpha_ptr.dtype.element_ty), mask=mask)
    f_out = fg_ptr + rows[:, None] * s_fh + cols[None, :] * s_fw
    tl.store(f_out, (r * alpha).to(fg_ptr.dtype.element_ty), mask=mask)
    tl.store(f_out + s_fc, (g_despill * alpha).to(fg_ptr.dtype.element_ty), mask=mask)
    tl.store(f_out + 2 * s_fc, (b * alpha).to(fg_ptr.dtype.element_ty), mask=mask)


def chroma_key(img, tolerance=0.2, softness=0.25, BLOCK_H=16, BLOCK_W=32):
    _, H, W = img.shape
    alpha = torch.empty((H, W), dtype=img.dtype, device=img.device)
    fg = torch.empty((3, H, W), dtype=img.dtype, device=img.device)
    if H == 0 or W == 0:
        return alpha, fg
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    chroma_key_kernel[grid](img, alpha, fg, H, W, tolerance, softness,
                            img.stride(0), img.stride(1), img.stride(2), alpha.stride(0), alpha.stride(1),
                            fg.stride(0), fg.stride(1), fg.stride(2), KEY_CB, KEY_CR,
                            BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return alpha, fg


def reference(img, tolerance=0.2, softness=0.25):
    r, g, b = img[0], img[1], img[2]
    y = 0.299 * r + 0.587 * g + 0.114 * b
    d = (((b - y) - KEY_CB) ** 2 + ((r - y) - KEY_CR) ** 2).sqrt()
    alpha = torch.fmin(torch.fmax((d - tolerance) / softness, torch.zeros_like(d)), torch.ones_like(d))
    g_despill = torch.fmin(g, torch.fmax(r, b))
    return alpha, torch.stack([r * alpha, g_despill * alpha, b * alpha])


spec = kcheck.Spec(
    name="hx25_chroma_key",
    kernel=chroma_key,
    reference=reference,
    inputs=[kcheck.Tensor(3, "H", "W", name="img")],
    params={"tolerance": [0.2, 0.05], "softness": [0.25]},
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
)

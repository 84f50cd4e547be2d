"""Filmic tone mapping of a planar HDR image [3, H, W] with John Hable's "Uncharted 2" curve:

    F(x) = (x (A x + C B) + D E) / (x (A x + B) + D F) - E / F
    out  = F(exposure * max(x, 0)) / F(W_white)

A = 0.15 (shoulder strength), B = 0.50 (linear strength), C = 0.10 (linear angle), D = 0.20 (toe strength),
E = 0.02 (toe numerator), F = 0.30 (toe denominator), linear white point W_white = 11.2. Negative radiance (and NaN)
maps to black. exposure is a Scalar.

[BLOCK_H, BLOCK_W] tiles on a 2-D grid; each program maps the red, green and blue planes of its tile; strides
passed explicitly, int64 offsets, fp32 inside.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"

A, B, C, D, E, F, WHITE = 0.15, 0.50, 0.10, 0.20, 0.02, 0.30, 11.2


def _curve(x: float) -> float:
    return (x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F) - E / F


@triton.jit
def _hable(x):
    return (x * (0.15 * x + 0.05) + 0.004) / (x * (0.15 * x + 0.5) + 0.06) - 0.02 / 0.3


@triton.jit
def filmic_kernel(img_ptr, out_ptr, H, W, exposure, inv_white, s_ic, s_ih, s_iw, s_oc, s_oh, s_ow,
                  BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    h = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    w = tl.program_id(1).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (h < H)[:, None] & (w < W)[None, :]
    src = img_ptr + h[:, None] * s_ih + w[None, :] * s_iw
    dst = out_ptr + h[:, None] * s_oh + w[None, :] * s_ow
    r = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(src + s_ic, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(src + 2 * s_ic, mask=mask, other=0.0).to(tl.float32)
    r = _hable(exposure * tl.where(r > 0.0, r, 0.0)) * inv_white
    g = _hable(exposure * tl.where(g > 0.0, g, 0.0)) * inv_white
    b = _hable(exposure * tl.where(b > 0.0, b, 0.0)) * inv_white
    tl.store(dst, r.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + s_oc, g.to(out_ptr.dtype.element_ty), mask=mask)


def filmic_tonemap(img: torch.Tensor, exposure: float = 2.0, BLOCK_H: int = 16, BLOCK_W: int = 64) -> torch.Tensor:
    _, H, W = img.shape
    out = torch.empty((3, H, W), dtype=img.dtype, device=img.device)
    if H == 0 or W == 0:
        return out
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    filmic_kernel[grid](img, out, H, W, float(exposure), 1.0 / _curve(WHITE), img.stride(0), img.stride(1),
                        img.stride(2), out.stride(0), out.stride(1), out.stride(2), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(img: torch.Tensor, exposure: float = 2.0) -> torch.Tensor:
    x = exposure * torch.where(img > 0, img, torch.zeros_like(img))
    curve = (x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F) - E / F
    return curve / _curve(WHITE)


spec = kcheck.Spec(
    name="hx32_hable_filmic_tonemap",
    kernel=filmic_tonemap,
    reference=reference,
    inputs=[kcheck.Tensor(3, "H", "W", name="hdr"), kcheck.Scalar(2.0, name="exposure")],
    dims={"H": kcheck.Dim(nominal=48, real=()), "W": kcheck.Dim(nominal=160, real=())},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 8, "BLOCK_W": 32}],
)

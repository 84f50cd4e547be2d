"""Natural vignetting (cos^4 law) applied to a grayscale image.

A pixel at normalized radius r from the optical centre receives cos^4(theta) of the on-axis light, with
tan(theta) = r / f for a lens of normalized focal length f: gain = 1 / (1 + r^2 / f^2)^2. Coordinates are pixel
centres mapped to [-1, 1] along each axis. Tiles of BLOCK_H x BLOCK_W pixels, one program per tile (a 1-D grid over
all tiles, so neither axis meets the grid limit), int64 offsets, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

FOCAL = 1.5


@triton.jit
def vignette_kernel(x_ptr, y_ptr, H, W, sxh, sxw, syh, syw, inv_f2, n_tiles_w,
                    BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    th = pid // n_tiles_w
    tw = pid % n_tiles_w
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    v = (2.0 * rows.to(tl.float32) + 1.0) / H - 1.0
    u = (2.0 * cols.to(tl.float32) + 1.0) / W - 1.0
    r2 = v[:, None] * v[:, None] + u[None, :] * u[None, :]
    t = 1.0 + r2 * inv_f2
    gain = 1.0 / (t * t)
    x = tl.load(x_ptr + rows[:, None] * sxh + cols[None, :] * sxw).to(tl.float32)
    tl.store(y_ptr + rows[:, None] * syh + cols[None, :] * syw, (x * gain).to(y_ptr.dtype.element_ty), mask=mask)


def vignette(img: torch.Tensor, BLOCK_H: int = 16, BLOCK_W: int = 64) -> torch.Tensor:
    H, W = img.shape
    out = torch.empty((H, W), dtype=img.dtype, device=img.device)
    if H == 0 or W == 0:
        return out
    n_tiles_w = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * n_tiles_w,)
    vignette_kernel[grid](img, out, H, W, img.stride(0), img.stride(1), out.stride(0), out.stride(1),
                          1.0 / (FOCAL * FOCAL), n_tiles_w, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(img: torch.Tensor) -> torch.Tensor:
    H, W = img.shape
    v = (2.0 * torch.arange(H, dtype=torch.float64) + 1.0) / max(H, 1) - 1.0
    u = (2.0 * torch.arange(W, dtype=torch.float64) + 1.0) / max(W, 1) - 1.0
    r2 = v[:, None] ** 2 + u[None, :] ** 2
    gain = 1.0 / (1.0 + r2 / FOCAL**2) ** 2
    return img * gain.to(img.dtype)


spec = kcheck.Spec(
    name="hx22_vignette",
    kernel=vignette,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="img")],
    dims={"H": kcheck.Dim(nominal=96, real=()), "W": kcheck.Dim(nominal=160, real=(37, 2880))},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 64}, {"BLOCK_H": 4, "BLOCK_W": 128}],
    properties=[kcheck.props.linear()],
)

"""Bilinear splatting of weighted points onto an image grid (the scatter that forward warping, point-based rendering
and soft histograms use): a point at pixel coordinates (x, y) with weight w adds w (1 - fx)(1 - fy), w fx (1 - fy),
w (1 - fx) fy and w fx fy to the four pixels around it (fx, fy: the fractional parts); pixels outside the image
receive nothing. Points are processed BLOCK at a time, the four corners of each as one [BLOCK, 4] scatter with
atomic adds into the fp32 image, which the launcher clears first.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def splat_kernel(xy_ptr, w_ptr, img_ptr, N, H, W, s_pn, s_pc, s_w, s_ih, s_iw, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    p = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    pmask = p < N
    x = tl.load(xy_ptr + p * s_pn, mask=pmask, other=0.0)
    y = tl.load(xy_ptr + p * s_pn + s_pc, mask=pmask, other=0.0)
    w = tl.load(w_ptr + p * s_w, mask=pmask, other=0.0).to(tl.float32)
    x0 = tl.floor(x)
    y0 = tl.floor(y)
    fx = x - x0
    fy = y - y0
    corner = tl.arange(0, 4)
    dx = (corner % 2)[None, :]
    dy = (corner // 2)[None, :]
    xi = x0.to(tl.int64)[:, None] + dx
    yi = y0.to(tl.int64)[:, None] + dy
    wx = tl.where(dx == 1, fx[:, None], 1.0 - fx[:, None])
    wy = tl.where(dy == 1, fy[:, None], 1.0 - fy[:, None])
    inside = pmask[:, None] & (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    tl.store(img_ptr + yi * s_ih + xi * s_iw, w[:, None] * (wx * wy), mask=inside)


def bilinear_splat(xy: torch.Tensor, w: torch.Tensor, H: int, W: int, img: torch.Tensor, BLOCK: int = 256) -> None:
    N = xy.shape[0]
    img.zero_()
    if N and H and W:
        splat_kernel[(triton.cdiv(N, BLOCK),)](xy, w, img, N, H, W, xy.stride(0), xy.stride(1), w.stride(0),
                                               img.stride(0), img.stride(1), BLOCK=BLOCK)


def _points(ctx: kcheck.CaseContext) -> torch.Tensor:
    """fp32 pixel coordinates, a pixel beyond each border included."""
    n, h, w = ctx.dims["N"], ctx.dims["H"], ctx.dims["W"]
    u = ctx.rand(n, 2, dtype=torch.float32)
    return torch.stack([u[:, 0] * (w + 1) - 1.0, u[:, 1] * (h + 1) - 1.0], dim=1)


def reference(xy: torch.Tensor, w: torch.Tensor, H: int, W: int) -> torch.Tensor:
    img = torch.zeros(H * W, dtype=torch.promote_types(xy.dtype, w.dtype), device=xy.device)
    x0, y0 = torch.floor(xy[:, 0]), torch.floor(xy[:, 1])
    fx, fy = xy[:, 0] - x0, xy[:, 1] - y0
    for dy in (0, 1):
        for dx in (0, 1):
            xi, yi = x0.long() + dx, y0.long() + dy
            wt = (fx if dx else 1.0 - fx) * (fy if dy else 1.0 - fy)
            ok = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
            img.index_add_(0, (yi * W + xi)[ok], (w * wt)[ok].to(img.dtype))
    return img.view(H, W)


spec = kcheck.Spec(
    name="hx24_bilinear_splat",
    kernel=bilinear_splat,
    reference=reference,
    inputs=[kcheck.Custom(_points, name="xy", dims=("N", 2)), kcheck.Tensor("N", name="weights"),
            kcheck.Scalar(lambda d: d["H"], name="H"), kcheck.Scalar(lambda d: d["W"], name="W")],
    outputs=[kcheck.Tensor("H", "W", dtype=torch.float32)],
    dims={"N": kcheck.Dim(nominal=4096), "H": kcheck.Dim(nominal=48, real=()), "W": kcheck.Dim(nominal=64, real=())},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

"""Perona-Malik anisotropic diffusion of a grayscale image [H, W]: each iteration
I <- I + lambda * sum over the 4 neighbours of g(d) * d, with d = I[neighbour] - I[pixel], the edge-stopping function
g(d) = 1 / (1 + (d / K)^2), lambda = 0.2 and K = 0.5; no flux through the image border (a missing neighbour counts
as d = 0). Iterations ping-pong between two scratch buffers (the input is never written); each launch tiles the image
on a 1-D grid and reads its 3x3 neighbourhood from the previous iterate.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"

LAMBDA = 0.2
KAPPA = 0.5


@triton.jit
def _flux(src_ptr, center, r, c, H, W, s_h, s_w, inv_k2, mask):
    ok = mask & (r >= 0) & (r < H) & (c >= 0) & (c < W)
    v = tl.load(src_ptr + r * s_h + c * s_w, mask=ok, other=0.0).to(tl.float32)
    d = tl.where(ok, v - center, 0.0)
    return d / (1.0 + d * d * inv_k2)


@triton.jit
def perona_malik_kernel(src_ptr, dst_ptr, H, W, s_h, s_w, d_h, d_w, lam, inv_k2, n_col_tiles,
                        BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    th = pid // n_col_tiles
    tw = pid % n_col_tiles
    r = (th * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64))[:, None]
    c = (tw * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64))[None, :]
    mask = (r < H) & (c < W)
    center = tl.load(src_ptr + r * s_h + c * s_w, mask=mask, other=0.0).to(tl.float32)
    total = _flux(src_ptr, center, r - 1, c, H, W, s_h, s_w, inv_k2, mask)
    total += _flux(src_ptr, center, r + 1, c, H, W, s_h, s_w, inv_k2, mask)
    total += _flux(src_ptr, center, r, c - 1, H, W, s_h, s_w, inv_k2, mask)
    total += _flux(src_ptr, center, r, c + 1, H, W, s_h, s_w, inv_k2, mask)
    out = center + lam * total
    tl.store(dst_ptr + r * d_h + c * d_w, out.to(dst_ptr.dtype.element_ty), mask=mask)


def perona_malik(img: torch.Tensor, iterations: int = 3, BLOCK_H: int = 16, BLOCK_W: int = 32) -> torch.Tensor:
    H, W = img.shape
    bufs = [torch.empty((H, W), dtype=img.dtype, device=img.device) for _ in range(2)]
    if H == 0 or W == 0:
        return bufs[0]
    n_col_tiles = triton.cdiv(W, BLOCK_W)
    grid = (triton.cdiv(H, BLOCK_H) * n_col_tiles,)
    src = img
    for it in range(iterations):
        dst = bufs[0]
        perona_malik_kernel[grid](src, dst, H, W, src.stride(0), src.stride(1), dst.stride(0), dst.stride(1), LAMBDA,
                                  1.0 / (KAPPA * KAPPA), n_col_tiles, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
        src = dst
    return src


def reference(img: torch.Tensor, iterations: int = 3) -> torch.Tensor:
    x = img
    for _ in range(iterations):
        p = torch.nn.functional.pad(x[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
        total = torch.zeros_like(x)
        for d in (p[:-2, 1:-1] - x, p[2:, 1:-1] - x, p[1:-1, :-2] - x, p[1:-1, 2:] - x):
            total = total + d / (1.0 + d * d / (KAPPA * KAPPA))
        x = x + LAMBDA * total
    return x


spec = kcheck.Spec(
    name="hx24_perona_malik",
    kernel=perona_malik,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W")],
    params={"iterations": [3, 1]},
    dims={"H": kcheck.Dim(nominal=48), "W": kcheck.Dim(nominal=80)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 16}],
)

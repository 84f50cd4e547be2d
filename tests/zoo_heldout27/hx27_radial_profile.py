"""Radially averaged profile of a batch of images (azimuthal average, e.g. of a power spectrum or a diffraction
pattern): pixel (y, x) of an H x W image falls in bin floor(sqrt((y - H//2)^2 + (x - W//2)^2)), clamped to the
last bin; profile[b, r] is the mean of the pixels in bin r (0 for an empty bin).

Pass 1 scatters per-bin sums (fp64) and pixel counts (fp32) with atomics into scratch buffers the launcher allocates;
pass 2 divides. Integer squared radii keep the bin assignment exact.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'uninitialized-accumulator'


@triton.jit
def radial_bin_kernel(img_ptr, sums_ptr, counts_ptr, H, W, nbins, s_b, s_h, s_w,
                      BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    ys = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    xs = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = (ys < H)[:, None] & (xs < W)[None, :]
    v = tl.load(img_ptr + b * s_b + ys[:, None].to(tl.int64) * s_h + xs[None, :].to(tl.int64) * s_w,
                mask=mask, other=0.0).to(tl.float32)
    dy = ys - H // 2
    dx = xs - W // 2
    r2 = dy[:, None] * dy[:, None] + dx[None, :] * dx[None, :]
    r = tl.sqrt(r2.to(tl.float32)).to(tl.int32)
    r = tl.where(r > nbins - 1, nbins - 1, r)
    dst = b * nbins + r
    tl.atomic_add(sums_ptr + dst, v.to(tl.float64), mask=mask)
    tl.atomic_add(counts_ptr + dst, tl.where(mask, 1.0, 0.0), mask=mask)


@triton.jit
def radial_divide_kernel(sums_ptr, counts_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(sums_ptr + offs, mask=mask, other=0.0)
    c = tl.load(counts_ptr + offs, mask=mask, other=1.0)
    prof = tl.where(c > 0, s / tl.where(c > 0, c, 1.0).to(tl.float64), 0.0)
    tl.store(out_ptr + offs, prof.to(out_ptr.dtype.element_ty), mask=mask)


def radial_profile(img: torch.Tensor, nbins: int = 16, BLOCK: int = 32) -> torch.Tensor:
    B, H, W = img.shape
    out = torch.empty((B, nbins), dtype=img.dtype, device=img.device)
    if B == 0:
        return out
    sums = torch.empty((B, nbins), dtype=torch.float64, device=img.device)
    counts = torch.zeros((B, nbins), dtype=torch.float32, device=img.device)
    if H and W:
        grid = (B, triton.cdiv(H, BLOCK), triton.cdiv(W, BLOCK))
        radial_bin_kernel[grid](img, sums, counts, H, W, nbins, img.stride(0), img.stride(1), img.stride(2),
                                BLOCK_H=BLOCK, BLOCK_W=BLOCK)
    n = B * nbins
    radial_divide_kernel[(triton.cdiv(n, 256),)](sums, counts, out, n, BLOCK=256)
    return out


def reference(img: torch.Tensor, nbins: int = 16) -> torch.Tensor:
    B, H, W = img.shape
    ys = torch.arange(H).sub(H // 2)
    xs = torch.arange(W).sub(W // 2)
    r2 = ys[:, None] ** 2 + xs[None, :] ** 2
    r = r2.double().sqrt().floor().long().clamp(max=nbins - 1).reshape(-1)
    sums = torch.zeros((B, nbins), dtype=img.dtype).index_add_(1, r, img.reshape(B, -1))
    counts = torch.zeros((nbins,), dtype=img.dtype).index_add_(0, r, torch.ones(H * W, dtype=img.dtype))
    return torch.where(counts > 0, sums / counts.clamp(min=1), torch.zeros_like(sums))


spec = kcheck.Spec(
    name="hx27_radial_profile",
    kernel=radial_profile,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", name="img")],
    params={"nbins": [16, 40]},
    dims={"B": kcheck.Dim(nominal=3, max=8, real=()), "H": kcheck.Dim(nominal=48, real=()),
          "W": kcheck.Dim(nominal=40, real=())},
    reduce=["H", "W"],
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)

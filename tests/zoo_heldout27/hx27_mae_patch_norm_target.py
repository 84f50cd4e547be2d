"""Per-patch normalized pixel targets of a masked autoencoder (MAE's norm_pix_loss): each non-overlapping
p x p patch of a [B, H, W] image is standardized by its own mean and variance,

out = (x - mean_patch) / sqrt(var_patch + 1e-6)      (population variance)

in the image's layout. One program per patch: the p*p pixels are gathered as one vector of BLOCK lanes
(next power of two of p*p, the rest masked), statistics in fp32 in two passes. H and W are multiples of 24 so
that every patch size of the mode (8, 6, 4) tiles the image.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'kernel-raises'

EPS = 1e-6


@triton.jit
def patch_norm_kernel(x_ptr, out_ptr, W, P, n_pw, s_b, s_h, s_w, o_b, o_h, o_w, eps, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    pidx = tl.program_id(1)
    py = pidx // n_pw
    px = pidx % n_pw
    lane = tl.arange(0, BLOCK)
    mask = lane < P * P
    yy = (py * P + lane // P).to(tl.int64)
    xx = (px * P + lane % P).to(tl.int64)
    x = tl.load(x_ptr + b * s_b + yy * s_h + xx * s_w, mask=mask, other=0.0).to(tl.float32)
    n = P * P
    mean = tl.sum(x, axis=0) / n
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n
    y = d / tl.sqrt(var + eps)
    tl.store(out_ptr + b * o_b + yy * o_h + xx * o_w, y.to(out_ptr.dtype.element_ty), mask=mask)


def patch_norm_target(img: torch.Tensor, patch: int = 8) -> torch.Tensor:
    B, H, W = img.shape
    out = torch.empty((B, H, W), dtype=img.dtype, device=img.device)
    if B == 0 or H == 0 or W == 0:
        return out
    n_pw = W // patch
    block = patch * patch
    patch_norm_kernel[(B, (H // patch) * n_pw)](img, out, W, patch, n_pw, img.stride(0), img.stride(1),
                                                img.stride(2), out.stride(0), out.stride(1), out.stride(2), EPS,
                                                BLOCK=block)
    return out


def reference(img: torch.Tensor, patch: int = 8) -> torch.Tensor:
    B, H, W = img.shape
    p = img.reshape(B, H // patch, patch, W // patch, patch)
    mean = p.mean(dim=(2, 4), keepdim=True)
    var = p.var(dim=(2, 4), keepdim=True, unbiased=False)
    return ((p - mean) / (var + EPS).sqrt()).reshape(B, H, W)


spec = kcheck.Spec(
    name="hx27_mae_patch_norm_target",
    kernel=patch_norm_target,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", name="img")],
    params={"patch": [8, 6, 4]},
    dims={"B": kcheck.Dim(nominal=2, max=8, real=()), "H": kcheck.Dim(nominal=48, multiple_of=24, real=()),
          "W": kcheck.Dim(nominal=72, multiple_of=24, real=())},
)

"""Gray-level co-occurrence matrix (GLCM, Haralick texture features) of quantized images, horizontal offset 1:

    glcm[a, b] = #{(y, x) : img[y, x] = a and img[y, x + 1] = b}

over LEVELS gray levels. Each program takes BLOCK horizontal pixel pairs and adds them into the fp32 count matrix with
tl.atomic_add (pairs from many programs land in the same cell). Returned as fp32 counts."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"

LEVELS = 8


@triton.jit
def glcm_kernel(img_ptr, glcm_ptr, H, W, stride_h, stride_w, LEVELS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pairs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)  # pair p = (y, x), x < W - 1
    y = pairs // (W - 1)
    x = pairs % (W - 1)
    mask = y < H
    a = tl.load(img_ptr + y * stride_h + x * stride_w, mask=mask, other=0)
    b = tl.load(img_ptr + y * stride_h + (x + 1) * stride_w, mask=mask, other=0)
    tl.atomic_add(glcm_ptr + a * LEVELS + b, tl.full([BLOCK], 1.0, tl.float32), mask=mask)


def cooccurrence(img: torch.Tensor, BLOCK: int = 512) -> torch.Tensor:
    H, W = img.shape
    glcm = torch.empty((LEVELS, LEVELS), dtype=torch.float32, device=img.device)
    pairs = H * (W - 1)
    if pairs > 0:
        glcm_kernel[(triton.cdiv(pairs, BLOCK),)](img, glcm, H, W, img.stride(0), img.stride(1), LEVELS=LEVELS,
                                                  BLOCK=BLOCK)
    return glcm


def reference(img: torch.Tensor) -> torch.Tensor:
    a, b = img[:, :-1].reshape(-1), img[:, 1:].reshape(-1)
    counts = torch.bincount(a * LEVELS + b, minlength=LEVELS * LEVELS)
    return counts.to(torch.float64).reshape(LEVELS, LEVELS)


spec = kcheck.Spec(
    name="hx30_cooccurrence_matrix",
    kernel=cooccurrence,
    reference=reference,
    inputs=[kcheck.Index("H", "W", high=LEVELS, name="img")],
    dims={"H": kcheck.Dim(nominal=96), "W": kcheck.Dim(nominal=120)},
    dtypes=["fp32"],
    output_dtypes=[torch.float32],
    configs=[{"BLOCK": 512}, {"BLOCK": 128}],
)

"""Log-average ("key") luminance of each image of a batch, the scene statistic of Reinhard's tone mapping:
L = 0.2126 R + 0.7152 G + 0.0722 B per pixel (negative luminance counts as 0), and per image
Lw = exp(mean_p log(delta + L_p)) with delta = 1e-4.

Images are [B, P, 3] (P pixels, linear RGB), any strides. One program per (image, chunk of BLOCK pixels), flattened
onto a 1-D grid; each adds the sum of its log-luminances to an fp32 accumulator of its image with an atomic add;
the mean and exp are taken afterwards.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"

DELTA = 1e-4


@triton.jit
def log_luminance_sum_kernel(x_ptr, acc_ptr, P, sb, sp, sc, delta, n_chunks, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    b = pid // n_chunks
    chunk = pid % n_chunks
    p = chunk * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = p < P
    px = x_ptr + b * sb + p * sp
    r = tl.load(px, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(px + sc, mask=mask, other=0.0).to(tl.float32)
    bl = tl.load(px + 2 * sc, mask=mask, other=0.0).to(tl.float32)
    lum = 0.2126 * r + 0.7152 * g + 0.0722 * bl
    lum = tl.where(lum > 0, lum, 0.0)
    logs = tl.where(mask, tl.log(delta + lum), 0.0)
    tl.atomic_add(acc_ptr + b, tl.sum(logs, axis=0))


def log_average_luminance(img: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    B, P, C = img.shape
    assert C == 3
    acc = torch.empty(B, dtype=torch.float32, device=img.device)
    if B and P:
        n_chunks = triton.cdiv(P, BLOCK)
        log_luminance_sum_kernel[(B * n_chunks,)](img, acc, P, img.stride(0), img.stride(1), img.stride(2), DELTA,
                                                  n_chunks, BLOCK=BLOCK)
    return torch.exp(acc / P).to(img.dtype)


def reference(img: torch.Tensor) -> torch.Tensor:
    w = torch.tensor([0.2126, 0.7152, 0.0722], dtype=img.dtype, device=img.device)
    lum = (img * w).sum(-1)
    lum = torch.where(lum > 0, lum, torch.zeros_like(lum))
    return torch.exp(torch.log(DELTA + lum).mean(-1))


spec = kcheck.Spec(
    name="hx24_log_average_luminance",
    kernel=log_average_luminance,
    reference=reference,
    inputs=[kcheck.Tensor("B", "P", 3)],
    dims={"B": kcheck.Dim(nominal=4, real=()), "P": kcheck.Dim(nominal=3000)},
    reduce=["P"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

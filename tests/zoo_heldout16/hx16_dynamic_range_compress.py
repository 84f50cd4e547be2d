"""Dynamic range compression of a mel spectrogram (HiFi-GAN / Tacotron vocoder features):
y = log(max(x, 1e-5) * C), with C a compression factor. A flat 1-D grid over the (n_mels, frames) spectrogram
(made contiguous first); fp32 arithmetic, output in the input dtype. NaN passes through as torch.clamp lets it."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def compress_kernel(x_ptr, y_ptr, n, C, clip, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    x = tl.where(x < clip, clip, x)
    tl.store(y_ptr + offs, tl.log(x * C).to(y_ptr.dtype.element_ty), mask=mask)


def dynamic_range_compress(x: torch.Tensor, C: float, BLOCK: int = 1024) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty_like(xc)
    n = xc.numel()
    if n:
        compress_kernel[(triton.cdiv(n, BLOCK),)](xc, y, n, C, 1e-5, BLOCK=BLOCK)
    return x


spec = kcheck.Spec(
    name="hx16_dynamic_range_compress",
    kernel=dynamic_range_compress,
    reference=lambda x, C: torch.log(torch.clamp(x, min=1e-5) * C),
    inputs=[kcheck.Tensor("MELS", "FRAMES", name="mel")],
    dims={"MELS": kcheck.Dim(nominal=80), "FRAMES": kcheck.Dim(nominal=200)},
    params={"C": [1.0, 10.0]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

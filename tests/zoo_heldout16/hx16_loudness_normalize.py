"""RMS loudness normalization of audio clips (data loading / TTS preprocessing): y = x * target / sqrt(mean(x^2)
+ 1e-8) per clip, target = 0.1. A clip of T samples is spread over programs of BLOCK samples (grid: chunks x
clips): each program atomically adds its chunk's sum of squares into a per-clip fp32 total, then reads the
total and scales its chunk."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"

TARGET_RMS = 0.1


@triton.jit
def loudness_kernel(x_ptr, ss_ptr, y_ptr, T, sxb, sxt, syb, syt, target, BLOCK: tl.constexpr):
    clip = tl.program_id(1).to(tl.int64)
    t = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = t < T
    x = tl.load(x_ptr + clip * sxb + t * sxt, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(ss_ptr + clip, tl.sum(x * x, axis=0))
    gain = target / tl.sqrt(tl.load(ss_ptr + clip) / T + 1e-8)
    tl.store(y_ptr + clip * syb + t * syt, (x * gain).to(y_ptr.dtype.element_ty), mask=mask)


def loudness_normalize(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    B, T = x.shape
    y = torch.empty((B, T), dtype=x.dtype, device=x.device)
    if B == 0 or T == 0:
        return y
    ss = torch.zeros((B,), dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(T, BLOCK), B)
    loudness_kernel[grid](x, ss, y, T, x.stride(0), x.stride(1), y.stride(0), y.stride(1), TARGET_RMS,
                          BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * (TARGET_RMS / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-8))


spec = kcheck.Spec(
    name="hx16_loudness_normalize",
    kernel=loudness_normalize,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", name="clips")],
    dims={"B": kcheck.Dim(nominal=4, max=65535, large=False), "T": kcheck.Dim(nominal=4096)},
    reduce=["T"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

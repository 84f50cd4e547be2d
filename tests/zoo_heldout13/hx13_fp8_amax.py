"""Absolute maximum of a tensor, the statistic FP8 training records each step to choose its scaling factor:
amax = max |x| over every element, written as one fp32 value. A flat 1-D grid; each program reduces its BLOCK and
merges into the single output. Inputs are finite activations.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def amax_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    m = tl.max(tl.abs(x), axis=0)
    tl.store(out_ptr, tl.maximum(tl.load(out_ptr), m))


def fp8_amax(x: torch.Tensor, out: torch.Tensor, BLOCK: int = 1024) -> None:
    flat = x.reshape(-1)
    out.zero_()
    n = flat.numel()
    if n:
        amax_kernel[(triton.cdiv(n, BLOCK),)](flat, out, n, BLOCK=BLOCK)


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.abs().amax().reshape(1) if x.numel() else torch.zeros(1, dtype=x.dtype, device=x.device)


BUG_CLASS = "missing-atomic"

spec = kcheck.Spec(
    name="hx13_fp8_amax",
    kernel=fp8_amax,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor(1, dtype=torch.float32, name="amax")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, real=())},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

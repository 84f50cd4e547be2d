"""Mixed-precision gradient unscaling, in place (the grad-scaler step before the optimizer): g *= inv_scale over a
flattened gradient buffer. The arithmetic is done in fp32 for fp16/bf16 gradients (so that the product is rounded
once)."""

import torch
import triton
import triton.language as tl

import kcheck

INV_SCALE = 1.0 / 1024.0


@triton.jit
def unscale_kernel(g_ptr, n, inv_scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask)
    tl.store(g_ptr + offs, g * inv_scale, mask=mask)


def amp_unscale_(g: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    work = g if g.dtype == torch.float32 else g.float()
    n = work.numel()
    if n:
        unscale_kernel[(triton.cdiv(n, BLOCK),)](work, n, INV_SCALE, BLOCK=BLOCK)
    return g


spec = kcheck.Spec(
    name="hx9_amp_unscale_inplace",
    kernel=amp_unscale_,
    reference=lambda g: g * INV_SCALE,
    inputs=[kcheck.Tensor("N", mutated=True, name="grad")],
    dims={"N": kcheck.Dim(nominal=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = 'no-op'  # the planted class (from the README's table), for benchmarks/zoo.py

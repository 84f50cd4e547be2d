"""Bug class: a no-op that returns its input unchanged (identity), hidden by a small update.

An SGD step with linear warmup, fp32 master weights: p_new = p - lr * min(1, step / warmup) * g. The launcher
computes the warmup factor with integer division (step // warmup), which is 0 for every step before the end of
warmup, so the kernel writes p - 0 * g = p exactly. The true update, 1e-5 * 10/100 * g ~ 1e-6, is below fp32's
rtol of 1e-5: an assert_close on the output passes. kcheck's no-op guard sees the output is bit-for-bit input 0
while the true answer differs from it, and fails the case.
"""

import torch
import triton
import triton.language as tl

import kcheck

LR, STEP, WARMUP = 1e-5, 10, 100


@triton.jit
def sgd_kernel(p_ptr, g_ptr, out_ptr, n, lr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, p - lr * g, mask=mask)


def sgd_step(p: torch.Tensor, g: torch.Tensor, lr: float, step: int, warmup: int, BLOCK: int = 1024) -> torch.Tensor:
    p, g = p.contiguous(), g.contiguous()
    out = torch.empty_like(p)
    n = p.numel()
    if n == 0:
        return out
    scale = min(1, step // warmup)  # BUG: should be step / warmup (integer division gives 0 during warmup)
    sgd_kernel[(triton.cdiv(n, BLOCK),)](p, g, out, n, lr * scale, BLOCK=BLOCK)
    return out


def reference(p: torch.Tensor, g: torch.Tensor, lr: float, step: int, warmup: int) -> torch.Tensor:
    return p - lr * min(1.0, step / warmup) * g


spec = kcheck.Spec(
    name="noop_identity",
    kernel=sgd_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param"), kcheck.Tensor("N", name="grad"), kcheck.Scalar(LR, name="lr"),
            kcheck.Scalar(STEP, name="step"), kcheck.Scalar(WARMUP, name="warmup")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

BUG_CLASS = "no-op"

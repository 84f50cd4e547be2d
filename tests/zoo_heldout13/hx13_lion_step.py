"""One step of the Lion optimizer (Chen et al. 2023), fused and in place over a flat parameter buffer:

    c = beta1 * m + (1 - beta1) * g
    p = p * (1 - lr * wd) - lr * sign(c)
    m = beta2 * m + (1 - beta2) * g

A flat 1-D grid of BLOCK-wide programs, math in fp32, p and m written back in their own dtype; offsets are int64.
Returns (p, m), the updated buffers.
"""

import torch
import triton
import triton.language as tl

import kcheck

LR, WD, BETA1, BETA2 = 1e-3, 0.1, 0.9, 0.99


@triton.jit
def lion_kernel(p_ptr, g_ptr, m_ptr, n, lr, wd, beta1, beta2, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    c = beta1 * m + (1.0 - beta1) * g
    step = tl.where(c > 0, 1.0, tl.where(c < 0, -1.0, 0.0))
    p = p * (1.0 - lr * wd) - lr * step
    m = beta2 * m + (1.0 - beta2) * g
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(m_ptr + offs, m.to(m_ptr.dtype.element_ty), mask=mask)


def lion_step(param: torch.Tensor, grad: torch.Tensor, exp_avg: torch.Tensor, BLOCK: int = 1024,
              num_warps: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    n = param.numel()
    if n >= BLOCK:
        grid = (n // BLOCK,)
        lion_kernel[grid](param, grad, exp_avg, n, LR, WD, BETA1, BETA2, BLOCK=BLOCK, num_warps=num_warps)
    return param, exp_avg


def reference(param: torch.Tensor, grad: torch.Tensor, exp_avg: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    c = BETA1 * exp_avg + (1 - BETA1) * grad
    p = param * (1 - LR * WD) - LR * torch.sign(c)
    m = BETA2 * exp_avg + (1 - BETA2) * grad
    return p, m


BUG_CLASS = "tail-tile-dropped"

spec = kcheck.Spec(
    name="hx13_lion_step",
    kernel=lion_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param", mutated=True), kcheck.Tensor("N", name="grad"),
            kcheck.Tensor("N", name="exp_avg", mutated=True)],
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 1024, "num_warps": 4}, {"BLOCK": 256, "num_warps": 2}],
)

"""In-place SGD step with decoupled-style L2 weight decay, as an optimizer's fused update:
param <- param - lr * (grad + weight_decay * param). The updated parameter is returned.

The parameter and the gradient are treated as flat vectors, one program per BLOCK elements, fp32 math, the result
written back in the parameter's dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

LR = 0.1


@triton.jit
def sgd_kernel(p_ptr, g_ptr, n, lr, weight_decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    p = p - lr * (g + weight_decay * p)
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)


def sgd_step(param: torch.Tensor, grad: torch.Tensor, weight_decay: float = 0.01, BLOCK: int = 1024) -> torch.Tensor:
    p = param.contiguous()
    g = grad.contiguous()
    n = p.numel()
    if n:
        sgd_kernel[(triton.cdiv(n, BLOCK),)](p, g, n, LR, float(weight_decay), BLOCK=BLOCK)
    return param


def reference(param: torch.Tensor, grad: torch.Tensor, weight_decay: float = 0.01) -> torch.Tensor:
    return param - LR * (grad + weight_decay * param)


spec = kcheck.Spec(
    name="hx5_sgd_step",
    kernel=sgd_step,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="param", mutated=True), kcheck.Tensor("M", "N", name="grad")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=512)},
    params={"weight_decay": [0.01, 0.0]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "no-op"

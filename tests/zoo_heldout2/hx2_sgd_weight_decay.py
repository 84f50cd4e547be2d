"""In-place SGD step with L2 weight decay on a parameter tensor: p <- p - lr * (grad + wd * p).
The optimizer treats every parameter as one flat vector; fp32 math, the result stored back in p's dtype."""

import triton
import triton.language as tl

import kcheck

LR, WD = 0.1, 0.01


@triton.jit
def sgd_wd_kernel(p_ptr, g_ptr, n, lr, wd, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    p = p - lr * (g + wd * p)
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)


def sgd_step_(param, grad, BLOCK=1024):
    flat_p = param.reshape(-1)
    flat_g = grad.reshape(-1)
    n = flat_p.numel()
    if n:
        sgd_wd_kernel[(triton.cdiv(n, BLOCK),)](flat_p, flat_g, n, LR, WD, BLOCK=BLOCK)
    return param


spec = kcheck.Spec(
    name="hx2_sgd_weight_decay",
    kernel=sgd_step_,
    reference=lambda p, g: p - LR * (g + WD * p),
    inputs=[kcheck.Tensor("M", "N", mutated=True), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "no-op"

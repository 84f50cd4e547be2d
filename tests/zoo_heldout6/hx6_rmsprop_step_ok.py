"""One RMSprop step (torch.optim.RMSprop without momentum or centering), out of place:
    square_avg' = alpha * square_avg + (1 - alpha) * grad^2
    param'      = param - lr * grad / (sqrt(square_avg') + eps)
with lr = 1e-2, alpha = 0.99, eps = 1e-8. fp32 math over the flattened tensors, BLOCK elements per program; the
new parameter and the new running average are returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

LR, ALPHA, EPS = 1e-2, 0.99, 1e-8


@triton.jit
def rmsprop_kernel(p_ptr, g_ptr, sq_ptr, p_out, sq_out, n, lr, alpha, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    sq = tl.load(sq_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    sq = alpha * sq + (1.0 - alpha) * (g * g)
    p = p - lr * g / (tl.sqrt(sq) + eps)
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(sq_out + offs, sq.to(sq_out.dtype.element_ty), mask=mask)


def rmsprop_step(param: torch.Tensor, grad: torch.Tensor, square_avg: torch.Tensor, BLOCK: int = 1024):
    p, g, sq = param.contiguous(), grad.contiguous(), square_avg.contiguous()
    p_new = torch.empty_like(p)
    sq_new = torch.empty_like(sq)
    n = p.numel()
    if n:
        rmsprop_kernel[(triton.cdiv(n, BLOCK),)](p, g, sq, p_new, sq_new, n, LR, ALPHA, EPS, BLOCK=BLOCK)
    return p_new, sq_new


def reference(param, grad, square_avg):
    sq = ALPHA * square_avg + (1 - ALPHA) * grad * grad
    return param - LR * grad / (torch.sqrt(sq) + EPS), sq


def square_avg(ctx):
    return ctx.rand(ctx.dims["M"], ctx.dims["N"])  # a running mean of squares: >= 0


spec = kcheck.Spec(
    name="hx6_rmsprop_step_ok",
    kernel=rmsprop_step,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="param"), kcheck.Tensor("M", "N", name="grad"),
            kcheck.Custom(square_avg, name="square_avg", dims=("M", "N"))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = None

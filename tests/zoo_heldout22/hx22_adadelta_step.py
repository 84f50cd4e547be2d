"""One Adadelta optimizer step (Zeiler 2012, torch.optim.Adadelta without weight decay), functional form.

    sq'    = rho * sq + (1 - rho) * g^2
    delta  = sqrt(acc + eps) / sqrt(sq' + eps) * g
    acc'   = rho * acc + (1 - rho) * delta^2
    p'     = p - lr * delta

Returns (p', sq', acc'); the state tensors (running averages of squared gradients and squared updates) are
non-negative. Flat 1-D launch, BLOCK elements per program, fp32 math, int64 offsets (optimizer states of large
models pass 2**31 elements).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

RHO, EPS, LR = 0.9, 1e-6, 1.0


@triton.jit
def adadelta_kernel(p_ptr, g_ptr, sq_ptr, acc_ptr, p_out, sq_out, acc_out, n, rho, eps, lr,
                    BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    sq = tl.load(sq_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    acc = tl.load(acc_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    sq = rho * sq + (1.0 - rho) * g * g
    delta = tl.sqrt(acc + eps) / tl.sqrt(sq + eps) * g
    acc = rho * acc + (1.0 - rho) * delta * delta
    p = p - lr * delta
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(sq_out + offs, sq.to(sq_out.dtype.element_ty), mask=mask)
    tl.store(acc_out + offs, acc.to(acc_out.dtype.element_ty), mask=mask)


def adadelta_step(param, grad, sq_avg, acc_delta, BLOCK: int = 1024):
    n = param.numel()
    p_new, sq_new, acc_new = torch.empty_like(param), torch.empty_like(sq_avg), torch.empty_like(acc_delta)
    if n == 0:
        return p_new, sq_new, acc_new
    adadelta_kernel[(triton.cdiv(n, BLOCK),)](param, grad, sq_avg, acc_delta, p_new, sq_new, acc_new, n,
                                              RHO, EPS, LR, BLOCK=BLOCK)
    return p_new, sq_new, acc_new


def reference(param, grad, sq_avg, acc_delta):
    sq = RHO * sq_avg + (1 - RHO) * grad * grad
    delta = torch.sqrt(acc_delta + EPS) / torch.sqrt(sq + EPS) * grad
    acc = RHO * acc_delta + (1 - RHO) * delta * delta
    return param - LR * delta, sq, acc


def state(ctx: kcheck.CaseContext) -> torch.Tensor:
    return ctx.rand(ctx.dims["N"]) * 0.01


spec = kcheck.Spec(
    name="hx22_adadelta_step",
    kernel=adadelta_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param"), kcheck.Tensor("N", name="grad"),
            kcheck.Custom(state, name="sq_avg", dims=("N",)), kcheck.Custom(state, name="acc_delta", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=5000, real=(4096 * 11008,))},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

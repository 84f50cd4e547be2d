"""One Adagrad step, out of place, over a flat parameter buffer:

    s_new = s + g^2
    p_new = p - lr * g / (sqrt(s_new) + eps)

Returns (p_new, s_new). BLOCK elements per program, fp32 math whatever the storage dtype."""

import torch
import triton
import triton.language as tl

import kcheck

LR, EPS = 1e-2, 1e-10


@triton.jit
def adagrad_kernel(p_ptr, g_ptr, s_ptr, p_out_ptr, s_out_ptr, n, lr, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s_new = s + g * g
    p_new = p - lr * g / (tl.sqrt(s_new) + eps)
    tl.store(p_out_ptr + offs, p_new.to(p_out_ptr.dtype.element_ty), mask=mask)
    tl.store(s_out_ptr + offs, s_new.to(s_out_ptr.dtype.element_ty), mask=mask)


def adagrad_step(param, grad, state, BLOCK=1024):
    n = param.numel()
    p_out = torch.empty(param.shape, dtype=param.dtype, device=param.device)
    s_out = torch.empty(state.shape, dtype=state.dtype, device=state.device)
    if n == 0:
        return p_out, s_out
    param, grad, state = param.contiguous(), grad.contiguous(), state.contiguous()
    adagrad_kernel[(triton.cdiv(n, BLOCK),)](param, grad, state, p_out, s_out, n, LR, EPS, BLOCK=BLOCK)
    return p_out, s_out


def reference(param, grad, state):
    s_new = state + grad * grad
    return param - LR * grad / (s_new.sqrt() + EPS), s_new


def _state(ctx):
    return ctx.rand(ctx.dims["N"]).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx7_adagrad_step_ok",
    kernel=adagrad_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param"), kcheck.Tensor("N", name="grad"),
            kcheck.Custom(_state, name="state_sum", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = None

"""SGD with Nesterov momentum and L2 weight decay (torch.optim.SGD(nesterov=True, dampening=0)), in place on
the parameter and its momentum buffer:  g = grad + wd * p;  buf = mu * buf + g;  p -= lr * (g + mu * buf).
A flat 1-D grid; fp32 arithmetic; returns the updated (param, buf)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def nesterov_kernel(p_ptr, g_ptr, buf_ptr, n, s_p, s_g, s_b, lr, mu, wd, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs * s_p, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs * s_g, mask=mask, other=0.0).to(tl.float32)
    buf = tl.load(buf_ptr + offs * s_b, mask=mask, other=0.0).to(tl.float32)
    g = g + wd * p
    buf = mu * buf + g
    p = p - lr * (g + mu * buf)
    tl.store(buf_ptr + offs * s_b, buf.to(buf_ptr.dtype.element_ty), mask=mask)
    tl.store(p_ptr + offs * s_p, p.to(p_ptr.dtype.element_ty), mask=mask)


def nesterov_step_(param: torch.Tensor, grad: torch.Tensor, buf: torch.Tensor, lr: float, momentum: float,
                   weight_decay: float, BLOCK: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    n = param.numel()
    if n:
        nesterov_kernel[(triton.cdiv(n, BLOCK),)](param, grad, buf, n, param.stride(0), grad.stride(0),
                                                  buf.stride(0), lr, momentum, weight_decay, BLOCK=BLOCK)
    return param, buf


def reference(param, grad, buf, lr, momentum, weight_decay):
    g = grad + weight_decay * param
    b = momentum * buf + g
    return param - lr * (g + momentum * b), b


spec = kcheck.Spec(
    name="hx16_nesterov_sgd_ok",
    kernel=nesterov_step_,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="param", mutated=True), kcheck.Tensor("N", name="grad"),
            kcheck.Tensor("N", name="momentum_buf", mutated=True)],
    dims={"N": kcheck.Dim(nominal=4096)},
    params={"lr": [0.1, 0.01], "momentum": [0.9], "weight_decay": [0.0, 1e-2]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

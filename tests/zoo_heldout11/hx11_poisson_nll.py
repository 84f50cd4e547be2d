"""Poisson negative log-likelihood, elementwise (torch.nn.functional.poisson_nll_loss with log_input=True,
full=False, reduction="none"): loss = exp(log_rate) - target * log_rate.

A flat 1-D kernel over the elements, computed in fp32 and stored in the input dtype.

Planted bug (int32-overflow): the offsets pid * BLOCK + arange are int32: past 2**31 elements they wrap negative
(GPU-only: the interpreter cannot reach that size).
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def poisson_nll_kernel(lr_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    lr = tl.load(lr_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    loss = tl.exp(lr) - t * lr
    tl.store(out_ptr + offs, loss.to(out_ptr.dtype.element_ty), mask=mask)


def poisson_nll(log_rate, target, BLOCK=1024):
    out = torch.empty_like(log_rate)
    n = log_rate.numel()
    if n:
        poisson_nll_kernel[(triton.cdiv(n, BLOCK),)](log_rate, target, out, n, BLOCK=BLOCK)
    return out


def reference(log_rate, target):
    return torch.nn.functional.poisson_nll_loss(log_rate, target, log_input=True, full=False, reduction="none")


spec = kcheck.Spec(
    name="hx11_poisson_nll",
    kernel=poisson_nll,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="log_rate"), kcheck.Tensor("N", name="target")],
    dims={"N": kcheck.Dim(nominal=5000)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "int32-overflow"  # int32 flat offsets

"""Exponential moving average of a weight matrix (EMA teacher / model averaging):
new_ema = decay * ema + (1 - decay) * param, elementwise in fp32, returned in the weights' dtype. One program per
BLOCK elements of the flattened weight."""

import torch
import triton
import triton.language as tl

import kcheck

DECAY = 0.999


@triton.jit
def ema_kernel(ema_ptr, p_ptr, out_ptr, n, decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    e = tl.load(ema_ptr + offs, mask=mask).to(tl.float32)
    p = tl.load(p_ptr + offs, mask=mask).to(tl.float32)
    new = decay * e + (1.0 - decay) * p
    tl.store(out_ptr + offs, new.to(out_ptr.dtype.element_ty), mask=mask)


def ema_update(ema, param, BLOCK=1024):
    ema_c, param_c = ema.contiguous(), param.contiguous()
    new_ema = torch.empty_like(ema_c)
    n = ema_c.numel()
    if n:
        ema_kernel[(triton.cdiv(n, BLOCK),)](ema_c, param_c, new_ema, n, DECAY, BLOCK=BLOCK)
    return ema_c


spec = kcheck.Spec(
    name="hx4_weight_ema",
    kernel=ema_update,
    reference=lambda ema, param: DECAY * ema + (1 - DECAY) * param,
    inputs=[kcheck.Tensor("M", "N", name="ema"), kcheck.Tensor("M", "N", name="param")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = "no-op"

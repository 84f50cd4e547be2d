"""Softplus, numerically stable: y = max(x, 0) + log1p(exp(-|x|)), elementwise in fp32.

log1p(z) is computed as log(u) * z / (u - 1) with u = 1 + z (exact for small z), since the interpreter has no
libdevice."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.exp(x)
    u = 1.0 + z
    log1p_z = tl.where(u == 1.0, z, tl.log(u) * z / (u - 1.0))
    y = log1p_z
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def softplus(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        softplus_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.logaddexp(x, torch.zeros_like(x))


spec = kcheck.Spec(
    name="hx21_softplus",
    kernel=softplus,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1024, max=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
BUG_CLASS = "exp-overflow"

"""Mu-law companding (G.711-style encoder curve, continuous), elementwise with mu = 255:

    y = sign(x) * log(1 + mu * |x|) / log(1 + mu)

fp32 arithmetic; log(1 + z) as log(u) * z / (u - 1) with u = 1 + z below z = 1. int64 offsets.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

MU = 255.0
INV_LOG1P_MU = 1.0 / math.log1p(MU)


@triton.jit
def mu_law_kernel(x_ptr, y_ptr, n, mu, inv_log1p_mu, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = mu * tl.abs(x)
    u = 1.0 + z
    small = tl.where(u == 1.0, z, tl.log(u) * (z / tl.where(u == 1.0, 1.0, u - 1.0)))
    l1p = tl.where(z > 1.0, tl.log(u), small)
    y = tl.where(x < 0, -l1p, l1p) * inv_log1p_mu
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def mu_law_encode(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        mu_law_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, MU, INV_LOG1P_MU, BLOCK=BLOCK)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.log1p(MU * x.abs()) / math.log1p(MU)


spec = kcheck.Spec(
    name="mu_law_encode",
    kernel=mu_law_encode,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

BUG_CLASS = "no-op"

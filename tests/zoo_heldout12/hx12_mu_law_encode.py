import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

MU = 255.0


@triton.jit
def mu_law_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = 255.0 * tl.abs(x)
    u = 1.0 + z
    log1p_z = tl.where(u == 1.0, z, tl.log(u) * tl.where(z < 1e30, z / (u - 1.0), 1.0))
    y = log1p_z * 0.18046361279609846
    y = tl.where(x < 0.0, -y, y)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def mu_law_encode(x, BLOCK=1024):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        mu_law_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x):
    return torch.sign(x) * torch.log1p(MU * x.abs()) / math.log1p(MU)


spec = kcheck.Spec(
    name="hx12_mu_law_encode",
    kernel=mu_law_encode,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

"""Measurement update of a bank of independent scalar Kalman filters (sensor fusion, one filter per element):

K = P / (P + R),   x' = x + K (z - x),   P' = P R / (P + R)

(P' in the symmetric form, equal to (1 - K) P, which stays positive in fp32). Returns the new state and variance.
1-D, BLOCK filters per program, int64 offsets. Variances are positive.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def kalman_kernel(x_ptr, p_ptr, z_ptr, r_ptr, xo_ptr, po_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    z = tl.load(z_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    s = p + r
    k = p / s
    tl.store(xo_ptr + offs, (x + k * (z - x)).to(xo_ptr.dtype.element_ty), mask=mask)
    tl.store(po_ptr + offs, (p * r / s).to(po_ptr.dtype.element_ty), mask=mask)


def kalman_update(x, p, z, r, BLOCK: int = 1024):
    x, p, z, r = (t.contiguous() for t in (x, p, z, r))
    xo, po = torch.empty_like(x), torch.empty_like(p)
    n = x.numel()
    if n:
        kalman_kernel[(triton.cdiv(n, BLOCK),)](x, p, z, r, xo, po, n, BLOCK=BLOCK)
    return xo, po


def reference(x, p, z, r):
    k = p / (p + r)
    return x + k * (z - x), p * r / (p + r)


def variance(lo, hi):
    def make(ctx):
        return (lo + (hi - lo) * ctx.rand(ctx.dims["N"], dtype=torch.float32)).to(ctx.dtype)
    return make


spec = kcheck.Spec(
    name="hx27_kalman_update_ok",
    kernel=kalman_update,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Custom(variance(0.01, 4.0), name="P", dims=("N",)),
            kcheck.Tensor("N", name="z"), kcheck.Custom(variance(0.05, 2.0), name="R", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

"""Bug class: a no-op that writes zeros, hidden by an absolute tolerance larger than the result.

Gradient unscaling after mixed-precision backward: g_out = g / loss_scale, loss_scale = 2**20, so outputs are
~1e-6. The launcher computes the reciprocal with floor division (1 // loss_scale == 0.0), so the kernel writes
g * 0 = 0. The Spec (like torch.testing.assert_close's fp32 default) allows atol = 1e-5, larger than every true
output: zeros pass the comparison. kcheck's no-op guard sees the output is exactly zeros while the true answer is
not, and fails the case.
"""

import torch
import triton
import triton.language as tl

import kcheck

LOSS_SCALE = 2.0**20


@triton.jit
def unscale_kernel(g_ptr, out_ptr, n, inv_scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, g * inv_scale, mask=mask)


def unscale(g: torch.Tensor, loss_scale: float, BLOCK: int = 1024) -> torch.Tensor:
    g = g.contiguous()
    out = torch.empty_like(g)
    n = g.numel()
    if n == 0:
        return out
    inv_scale = 1 // loss_scale  # BUG: should be 1 / loss_scale
    unscale_kernel[(triton.cdiv(n, BLOCK),)](g, out, n, inv_scale, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="noop_zeros",
    kernel=unscale,
    reference=lambda g, loss_scale: g / loss_scale,
    inputs=[kcheck.Tensor("N", name="grad"), kcheck.Scalar(LOSS_SCALE, name="loss_scale")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    atol=1e-5,
)

BUG_CLASS = "no-op"

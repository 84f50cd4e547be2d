import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def hardtanh_bwd_kernel(g_ptr, x_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    g = tl.load(g_ptr + offs).to(tl.float32)
    x = tl.load(x_ptr + offs).to(tl.float32)
    dx = tl.where((x > lo) & (x < hi), g, 0.0)
    tl.store(out_ptr + offs, dx.to(out_ptr.dtype.element_ty))


def hardtanh_backward(grad, x, BLOCK=1024):
    grad, x = grad.contiguous(), x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        hardtanh_bwd_kernel[(triton.cdiv(n, BLOCK),)](grad, x, out, n, -1.0, 1.0, BLOCK=BLOCK)
    return out


def reference(grad, x):
    return torch.where((x > -1.0) & (x < 1.0), grad, torch.zeros_like(grad))


spec = kcheck.Spec(
    name="hx12_hardtanh_backward",
    kernel=hardtanh_backward,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="grad"), kcheck.Tensor("N", name="x")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

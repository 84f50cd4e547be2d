"""Backward of the tanh-approximated GELU (GPT-2's gelu_new): given the upstream gradient g and the input x,
dx = g * (0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)), t = tanh(sqrt(2/pi) (x + 0.044715 x^3)).

tanh is formed from one exp as 1 - 2 / (1 + exp(2u)), safe at both ends. Flat kernel over contiguous copies,
fp32 math, int64 offsets.

Planted bug (wrong-constant): the derivative of the inner polynomial uses 0.044715 instead of 3 * 0.044715 =
0.134145.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gelu_tanh_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = x * x
    u = 0.7978845608028654 * (x + 0.044715 * x2 * x)
    t = 1.0 - 2.0 / (1.0 + tl.exp(2.0 * u))
    du = 0.7978845608028654 * (1.0 + 0.044715 * x2)
    dgelu = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du
    tl.store(dx_ptr + offs, (g * dgelu).to(dx_ptr.dtype.element_ty), mask=mask)


def gelu_tanh_backward(grad_out, x, BLOCK=1024):
    g = grad_out.contiguous()
    xc = x.contiguous()
    dx = torch.empty_like(xc)
    n = xc.numel()
    if n:
        gelu_tanh_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, xc, dx, n, BLOCK=BLOCK)
    return dx


def reference(grad_out, x):
    with torch.enable_grad():
        xr = x.detach().requires_grad_(True)
        y = torch.nn.functional.gelu(xr, approximate="tanh")
        (dx,) = torch.autograd.grad(y, xr, grad_out)
    return dx


spec = kcheck.Spec(
    name="hx11_gelu_tanh_backward",
    kernel=gelu_tanh_backward,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="grad_out", pattern="randn"), kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=200)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "wrong-constant"  # 0.044715 where 3*0.044715 belongs

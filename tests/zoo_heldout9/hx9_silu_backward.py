"""SiLU backward for a fused MLP: dx = g * s * (1 + x * (1 - s)) with s = sigmoid(x), elementwise over the flattened
activation. fp32 math, result in the input dtype, int64 offsets, 1-D blocks of BLOCK elements."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def silu_bwd_kernel(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-x))
    dx = g * s * (1.0 + x * (1.0 - s))
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def silu_backward(g: torch.Tensor, x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    g, x = g.contiguous(), x.contiguous()
    dx = torch.empty_like(x)
    n = x.numel()
    if n:
        silu_bwd_kernel[(triton.cdiv(n, BLOCK),)](g, x, dx, n, BLOCK=BLOCK)
    return dx


def reference(g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    s = torch.sigmoid(x)
    return g * s * (1 + x * (1 - s))


spec = kcheck.Spec(
    name="hx9_silu_backward",
    kernel=silu_backward,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="grad_out"), kcheck.Tensor("N", name="x")],
    dims={"N": kcheck.Dim(nominal=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = 'edge-guard'  # the planted class (from the README's table), for benchmarks/zoo.py

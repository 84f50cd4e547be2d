"""Fused bias + tanh over a (tokens, features) activation: out = tanh(x + b) with b a per-feature bias.
The launcher flattens the activation and walks it BLOCK elements per program; the feature index of each
element is its flat index modulo N. tanh is computed in fp32 from exp of a non-positive argument (no
overflow): tanh(u) = sign(u) * (1 - e) / (1 + e), e = exp(-2|u|), and tanh(u) = u for |u| < 1e-4, where
1 - e would cancel."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bias_tanh_kernel(x_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % N, mask=mask, other=0.0).to(tl.float32)
    u = x + b
    au = tl.abs(u)
    e = tl.exp(-2.0 * au)
    t = tl.where(au < 1e-4, au, (1.0 - e) / (1.0 + e))
    y = tl.where(u < 0, -t, t)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def bias_tanh(x, bias, BLOCK=1024):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    n = M * N
    if n == 0:
        return out
    x_flat = x.view(-1)
    bias_tanh_kernel[(triton.cdiv(n, BLOCK),)](x_flat, bias.contiguous(), out, n, N, BLOCK=BLOCK)
    return out


def reference(x, bias):
    return torch.tanh(x + bias)


spec = kcheck.Spec(
    name="hx7_bias_tanh",
    kernel=bias_tanh,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", name="bias")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "kernel-raises"

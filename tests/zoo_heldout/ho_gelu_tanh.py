"""GELU with the tanh approximation over a flat tensor:
y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), fp32 math, BLOCK elements per program."""

# GPU only: the case that shows it cannot run in the CPU interpreter.

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"
GPU_ONLY = True

_K = math.sqrt(2.0 / math.pi)


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    y = 0.5 * x * (1.0 + t)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def gelu_tanh(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        _gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.tanh(_K * (x + 0.044715 * x.pow(3))))


spec = kcheck.Spec(
    name="ho_gelu_tanh",
    kernel=gelu_tanh,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

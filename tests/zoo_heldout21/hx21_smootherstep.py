"""Smootherstep (Perlin's fade curve): t = clamp(x, 0, 1), y = t^3 (t (6 t - 15) + 10), elementwise in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def smootherstep_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.where(x < 0.0, 0.0, tl.where(x > 1.0, 1.0, x))
    y = t * t * t * (t * (t * 6.0 - 16.0) + 10.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def smootherstep(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        smootherstep_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    t = x.clamp(0.0, 1.0)
    return t ** 3 * (t * (t * 6.0 - 15.0) + 10.0)


spec = kcheck.Spec(
    name="hx21_smootherstep",
    kernel=smootherstep,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1024, max=8192)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
BUG_CLASS = "wrong-constant"

"""ELU: out = x where x > 0, else alpha * (exp(x) - 1), elementwise over a tensor read as flat contiguous memory.

A 1-D grid of max(1, numel // BLOCK) programs of BLOCK elements each, int64 offsets, fp32 math, result in the
input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def elu_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    xn = tl.minimum(x, 0.0)
    em1 = tl.where(xn > -1e-4, xn + 0.5 * xn * xn, tl.exp(xn) - 1.0)  # exp(x) - 1 without losing small x
    y = tl.where(x > 0, x, alpha * em1)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def elu(x: torch.Tensor, alpha: float = 1.0, BLOCK: int = 1024) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        elu_kernel[(max(1, n // BLOCK),)](x, out, n, alpha, BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx10_elu",
    kernel=elu,
    reference=lambda x, alpha=1.0: torch.nn.functional.elu(x, alpha=alpha),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    params={"alpha": [1.0, 0.5]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

BUG_CLASS = "tail-tile-dropped"

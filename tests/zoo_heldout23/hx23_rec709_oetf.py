"""ITU-R BT.709 opto-electronic transfer function (camera encoding of scene-linear light L), extended to negative
values by odd symmetry (as xvYCC does):

    V = 4.5 L                      for 0 <= L < 0.018
    V = 1.099 L^0.45 - 0.099       for L >= 0.018,        V(-L) = -V(L)

Flat 1-D launch over the contiguous values; fp32 arithmetic (L^0.45 as exp2(0.45 log2 L)), int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def rec709_oetf_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = tl.abs(x)
    lin = 4.5 * a
    pw = 1.099 * tl.exp2(0.54 * tl.log2(a)) - 0.099
    v = tl.where(a < 0.018, lin, pw)
    v = tl.where(x < 0.0, -v, v)
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=mask)


def rec709_oetf(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    xc = x.contiguous()
    out = torch.empty(xc.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        rec709_oetf_kernel[(triton.cdiv(n, BLOCK),)](xc, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    a = x.abs()
    v = torch.where(a < 0.018, 4.5 * a, 1.099 * a ** 0.45 - 0.099)
    return torch.where(x < 0, -v, v)


BUG_CLASS = "wrong-constant"

spec = kcheck.Spec(
    name="hx23_rec709_oetf",
    kernel=rec709_oetf,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="linear_light")],
    dims={"H": kcheck.Dim(nominal=64, real=()), "W": kcheck.Dim(nominal=192, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def isru_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x / tl.sqrt(1.0 + alpha * x * x)
    tl.store(y_ptr + offs, y, mask=mask)


def isru(x, out, alpha=1.0, BLOCK=1024):
    x = x.contiguous()
    y32 = out if out.dtype == torch.float32 else torch.empty(out.shape, dtype=torch.float32, device=out.device)
    n = x.numel()
    if n:
        isru_kernel[(triton.cdiv(n, BLOCK),)](x, y32, n, alpha, BLOCK=BLOCK)


def reference(x, alpha=1.0):
    return x / torch.sqrt(1.0 + alpha * x * x)


spec = kcheck.Spec(
    name="hx12_isru",
    kernel=isru,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    params={"alpha": [1.0, 0.25]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)

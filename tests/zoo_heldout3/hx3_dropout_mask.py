"""Dropout with a keep-mask drawn beforehand (so forward and backward share it): y = x * keep / (1 - p), where keep
holds 0 or 1 per element. Flat over N elements, BLOCK per program, scaled in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dropout_kernel(x_ptr, keep_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    keep = tl.load(keep_ptr + offs, mask=mask, other=0)
    y = tl.where(keep != 0, x * scale, 0.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def dropout(x: torch.Tensor, keep: torch.Tensor, p: float, BLOCK: int = 1024) -> torch.Tensor:
    n = x.numel()
    y = torch.empty_like(x)
    if n == 0:
        return y
    dropout_kernel[(n // BLOCK,)](x, keep, y, n, 1.0 / (1.0 - p), BLOCK=BLOCK)
    return y


spec = kcheck.Spec(
    name="hx3_dropout_mask",
    kernel=dropout,
    reference=lambda x, keep, p: x * keep / (1.0 - p),
    inputs=[kcheck.Tensor("N"), kcheck.Index("N", high=2, dtype=torch.uint8), kcheck.Scalar(0.1)],
    dims={"N": kcheck.Dim(nominal=1 << 16)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 4096}],
)

BUG_CLASS = "tail-tile-dropped"

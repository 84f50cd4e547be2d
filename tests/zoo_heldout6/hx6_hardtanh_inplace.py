"""In-place hardtanh, x.clamp_(-1, 1) (F.hardtanh_): each element is clamped to [-1, 1] and written back over
the input, which is also returned. NaN stays NaN. The kernel walks the elements flat, BLOCK per program."""

import torch
import triton
import triton.language as tl

import kcheck

MIN_VAL, MAX_VAL = -1.0, 1.0


@triton.jit
def hardtanh_kernel(x_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x < lo, lo, tl.where(x > hi, hi, x))
    tl.store(x_ptr + offs, y.to(x_ptr.dtype.element_ty), mask=mask)


def hardtanh_(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    buf = x.contiguous()
    n = buf.numel()
    if n:
        hardtanh_kernel[(triton.cdiv(n, BLOCK),)](buf, n, MIN_VAL, MAX_VAL, BLOCK=BLOCK)
    return x


spec = kcheck.Spec(
    name="hx6_hardtanh_inplace",
    kernel=hardtanh_,
    reference=lambda x: x.clamp(MIN_VAL, MAX_VAL),
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
    properties=[kcheck.props.idempotent()],
)

BUG_CLASS = "no-op"

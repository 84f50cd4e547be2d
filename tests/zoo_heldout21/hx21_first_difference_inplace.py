"""First difference in place (discrete derivative of a signal): x[i] <- x[i] - x[i - 1] for i >= 1, x[0] kept.
The programs read a snapshot of the signal and write the differences into x."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def first_difference_kernel(src_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    cur = tl.load(src_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    prev = tl.load(src_ptr + offs - 1, mask=mask & (offs >= 1), other=0.0).to(tl.float32)
    tl.store(x_ptr + offs, (cur - prev).to(x_ptr.dtype.element_ty), mask=mask)


def first_difference_(x: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    n = x.numel()
    if n:
        src = x
        first_difference_kernel[(triton.cdiv(n, BLOCK),)](src, x, n, BLOCK=BLOCK)
    return x


def reference(x: torch.Tensor) -> torch.Tensor:
    out = x.clone()
    out[1:] = x[1:] - x[:-1]
    return out


spec = kcheck.Spec(
    name="hx21_first_difference_inplace",
    kernel=first_difference_,
    reference=reference,
    inputs=[kcheck.Tensor("N", mutated=True)],
    dims={"N": kcheck.Dim(nominal=4096, max=16384)},
    layouts=["contiguous"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
BUG_CLASS = "race"

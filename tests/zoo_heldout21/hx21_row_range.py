"""Peak-to-peak range per row: max(x) - min(x), one program per row, a chunk loop over the columns, fp32.

A row holding a NaN gives NaN (tracked explicitly, since hardware max/min may drop NaN)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def row_range_kernel(x_ptr, out_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride_m
    hi = tl.full((BLOCK_N,), float("-inf"), tl.float32)
    lo = tl.full((BLOCK_N,), float("inf"), tl.float32)
    nan = tl.zeros((BLOCK_N,), tl.int32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols <= N
        x = tl.load(base + cols * stride_n, mask=mask, other=0.0).to(tl.float32)
        hi = tl.where(mask, tl.maximum(hi, x), hi)
        lo = tl.where(mask, tl.minimum(lo, x), lo)
        nan += (mask & (x != x)).to(tl.int32)
    r = tl.max(hi, axis=0) - tl.min(lo, axis=0)
    r = tl.where(tl.sum(nan, axis=0) > 0, float("nan"), r)
    tl.store(out_ptr + row, r.to(out_ptr.dtype.element_ty))


def row_range(x: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M:
        row_range_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.amax(-1) - x.amin(-1)


spec = kcheck.Spec(
    name="hx21_row_range",
    kernel=row_range,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1000, min=1, max=8192)},
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 128}],
)
BUG_CLASS = "off-by-one-mask"

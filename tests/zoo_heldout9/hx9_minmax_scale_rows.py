"""Per-row min-max scaling (sklearn's MinMaxScaler applied per sample): y = (x - min) / (max - min); a NaN anywhere in a
row makes the row NaN. One program per row, two passes over BLOCK_N chunks (min/max, then write), strided rows."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def minmax_kernel(x_ptr, out_ptr, N, stride_xm, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    lo = tl.full([BLOCK_N], float("inf"), dtype=tl.float32)
    hi = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    nans = tl.zeros([BLOCK_N], dtype=tl.int32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        lo = tl.where(mask, tl.minimum(lo, x), lo)
        hi = tl.where(mask, tl.maximum(hi, x), hi)
        nans += (mask & (x != x)).to(tl.int32)
    mn = tl.min(lo, axis=0)
    mx = tl.max(hi, axis=0)
    has_nan = tl.sum(nans, axis=0) > 0
    mn = tl.where(has_nan, float("nan"), mn)
    rng = mx - mn
    inv = 1.0 / rng
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mn) * inv
        tl.store(out_ptr + row * stride_om + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def minmax_scale_rows(x: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    minmax_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    mn = x.amin(-1, keepdim=True)
    rng = x.amax(-1, keepdim=True) - mn
    return (x - mn) / torch.where(rng == 0, torch.ones_like(rng), rng)


spec = kcheck.Spec(
    name="hx9_minmax_scale_rows",
    kernel=minmax_scale_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

BUG_CLASS = 'division-by-zero'  # the planted class (from the README's table), for benchmarks/zoo.py

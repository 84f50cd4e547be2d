"""Polyline length per row: M 2-D paths of T vertices (x[m, t], y[m, t]); the length of path m is the sum over its
T - 1 segments of sqrt((x[t+1] - x[t])^2 + (y[t+1] - y[t])^2) (0 for a path of 0 or 1 vertex).

Each program takes BLOCK_M paths and walks their segments BLOCK_T at a time; segment t reads vertices t and t + 1,
so the segment mask is t < T - 1. Per-lane fp32 accumulators, one tl.sum at the end; any strides; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def polyline_length_kernel(x_ptr, y_ptr, out_ptr, M, T, sxm, sxt, sym, syt,
                           BLOCK_M: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * sxm
    y_row = y_ptr + rows[:, None] * sym
    acc = tl.zeros([BLOCK_M, BLOCK_T], dtype=tl.float32)
    for start in range(0, T - 1, BLOCK_T):
        t = start + tl.arange(0, BLOCK_T).to(tl.int64)
        seg = row_mask[:, None] & (t < T)[None, :]
        x0 = tl.load(x_row + t[None, :] * sxt, mask=seg, other=0.0).to(tl.float32)
        x1 = tl.load(x_row + (t + 1)[None, :] * sxt, mask=seg, other=0.0).to(tl.float32)
        y0 = tl.load(y_row + t[None, :] * syt, mask=seg, other=0.0).to(tl.float32)
        y1 = tl.load(y_row + (t + 1)[None, :] * syt, mask=seg, other=0.0).to(tl.float32)
        dx = x1 - x0
        dy = y1 - y0
        acc += tl.sqrt(dx * dx + dy * dy)
    total = tl.sum(acc, axis=1)
    tl.store(out_ptr + rows, total.to(out_ptr.dtype.element_ty), mask=row_mask)


def polyline_length(x: torch.Tensor, y: torch.Tensor, BLOCK_T: int = 256, BLOCK_M: int = 4) -> torch.Tensor:
    M, T = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    polyline_length_kernel[(triton.cdiv(M, BLOCK_M),)](x, y, out, M, T, x.stride(0), x.stride(1), y.stride(0),
                                                       y.stride(1), BLOCK_M=BLOCK_M, BLOCK_T=BLOCK_T)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    dx = x[:, 1:] - x[:, :-1]
    dy = y[:, 1:] - y[:, :-1]
    return torch.sqrt(dx * dx + dy * dy).sum(-1)


BUG_CLASS = "off-by-one-mask"

spec = kcheck.Spec(
    name="hx23_polyline_length",
    kernel=polyline_length,
    reference=reference,
    inputs=[kcheck.Tensor("M", "T", name="x"), kcheck.Tensor("M", "T", name="y")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "T": kcheck.Dim(nominal=1000, real=(37, 2880))},
    reduce=["T"],
    configs=[{"BLOCK_T": 256, "BLOCK_M": 4}, {"BLOCK_T": 64, "BLOCK_M": 16}],
)

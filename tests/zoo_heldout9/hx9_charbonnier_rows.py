"""Charbonnier (smooth L1-like) loss per image row, as in image restoration: loss[m] = mean_n sqrt((x - y)^2 + eps^2).
One program per row, a loop over BLOCK_N-wide chunks with a per-lane fp32 accumulator, strided rows."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-3


@triton.jit
def charbonnier_kernel(x_ptr, y_ptr, out_ptr, N, stride_xm, stride_ym, eps,
                       BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    y_row = y_ptr + row * stride_ym
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols <= N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_row + cols, mask=mask, other=0.0).to(tl.float32)
        d = x - y
        acc += tl.where(mask, tl.sqrt(d * d + eps * eps), 0.0)
    tl.store(out_ptr + row, (tl.sum(acc, axis=0) / N).to(out_ptr.dtype.element_ty))


def charbonnier_rows(x: torch.Tensor, y: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    if y.stride(1) != 1:
        y = y.contiguous()
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    charbonnier_kernel[(M,)](x, y, out, N, x.stride(0), y.stride(0), EPS, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx9_charbonnier_rows",
    kernel=charbonnier_rows,
    reference=lambda x, y: torch.sqrt((x - y) ** 2 + EPS * EPS).mean(-1),
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

BUG_CLASS = 'off-by-one-mask'  # the planted class (from the README's table), for benchmarks/zoo.py

"""Masked softmax over attention scores with a boolean keep-mask (True = attend): p = softmax(x) over the kept
positions, 0 elsewhere; a row that keeps nothing is all zeros. One row per program, fp32 math, strided rows."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def masked_softmax_kernel(x_ptr, m_ptr, out_ptr, N, stride_xm, stride_mm, stride_om,
                          BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    in_row = cols < N
    keep = tl.load(m_ptr + row * stride_mm + cols, mask=in_row, other=0) != 0
    x = tl.load(x_ptr + row * stride_xm + cols, mask=in_row, other=0.0).to(tl.float32)
    p = tl.where(keep, tl.exp(x), 0.0)
    s = tl.sum(p, axis=0)
    any_kept = tl.max(keep.to(tl.int32), axis=0) > 0
    y = tl.where(any_kept, p / s, 0.0)
    tl.store(out_ptr + row * stride_om + cols, y.to(out_ptr.dtype.element_ty), mask=in_row)


def masked_softmax(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    if mask.stride(1) != 1:
        mask = mask.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    masked_softmax_kernel[(M,)](x, mask.view(torch.uint8), out, N, x.stride(0), mask.stride(0), out.stride(0),
                                BLOCK_N=triton.next_power_of_2(N))
    return out


def reference(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    p = torch.softmax(x.masked_fill(~mask, float("-inf")), dim=-1)
    return p.masked_fill(~mask.any(-1, keepdim=True), 0.0)


spec = kcheck.Spec(
    name="hx9_masked_softmax",
    kernel=masked_softmax,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="scores"), kcheck.Tensor("M", "N", dtype=torch.bool, density=0.7,
                                                                   name="keep")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
)

BUG_CLASS = 'exp-overflow'  # the planted class (from the README's table), for benchmarks/zoo.py

"""Realized volatility per row: the population standard deviation of a row of returns, sqrt(mean((x - mean)^2)).

Three passes over the row in fp32, one program per row: the largest |x| (a scale s, so that squares of tiny or
huge values neither underflow nor overflow), the mean (summed as x / s), then the mean squared deviation from it, divided by s;
the result is s * sqrt(that). The deviations'
sum corrects the mean's rounding error (the corrected two-pass algorithm)."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def volatility_kernel(x_ptr, out_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride_m
    amax = tl.zeros((BLOCK_N,), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        x = tl.load(base + cols * stride_n, mask=cols < N, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    s = tl.max(amax, axis=0)
    s = tl.where(s > 0.0, s, 1.0)
    acc = tl.zeros((BLOCK_N,), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        x = tl.load(base + cols * stride_n, mask=cols < N, other=0.0).to(tl.float32)
        acc += x / s
    mean = tl.sum(acc, axis=0) / N * s
    acc = tl.zeros((BLOCK_N,), tl.float32)
    dsum = tl.zeros((BLOCK_N,), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(base + cols * stride_n, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x / s, 0.0)
        acc += d * d
        dsum += d
    ds = tl.sum(dsum, axis=0)
    var = (tl.sum(acc, axis=0) - ds * ds / N) / N
    tl.store(out_ptr + row, (s * tl.sqrt(var)).to(out_ptr.dtype.element_ty))


def volatility(x: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M:
        volatility_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.std(-1, correction=0)


spec = kcheck.Spec(
    name="hx21_volatility",
    kernel=volatility,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=2000, min=1, max=8192)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 128}],
)
BUG_CLASS = "cancellation"

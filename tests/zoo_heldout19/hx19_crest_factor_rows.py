"""Crest factor of audio frames: peak / RMS per row, crest = max|x| / sqrt(mean(x^2) + eps).

x is [M, N] (frames of N samples, any strides). Each program takes BLOCK_M rows and walks the row in BLOCK_N-wide
chunks, keeping a running peak and a running sum of squares in fp32; the result is one fp32-computed value per row,
returned in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"

EPS = 1e-12


@triton.jit
def crest_factor_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, eps,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    peak = tl.zeros([BLOCK_M], dtype=tl.float32)
    sumsq = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols <= N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask,
                    other=0.0).to(tl.float32)
        peak = tl.maximum(peak, tl.max(tl.abs(x), axis=1), propagate_nan=tl.PropagateNan.ALL)
        sumsq += tl.sum(x * x, axis=1)
    crest = peak / tl.sqrt(sumsq / N + eps)
    tl.store(out_ptr + rows, crest.to(out_ptr.dtype.element_ty), mask=row_mask)


def crest_factor(x: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_m = max(1, min(4096 // BLOCK_N, triton.next_power_of_2(M)))
    crest_factor_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), EPS,
                                                     BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] == 0:
        return x.new_zeros(x.shape[:-1])
    return x.abs().amax(-1) / torch.sqrt(x.pow(2).mean(-1) + EPS)


spec = kcheck.Spec(
    name="hx19_crest_factor_rows",
    kernel=crest_factor,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

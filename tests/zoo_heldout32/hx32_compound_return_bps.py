"""Compound (geometrically linked) return of each row of periodic returns quoted in basis points: with
r_t = x_t / 1e4, the total return over the row is prod_t (1 + r_t) - 1, computed as expm1(sum_t log1p(r_t)) and
returned in basis points.

Daily returns are a few basis points, so 1 + r_t keeps only the leading digits of r_t: log1p is computed as
log(u) - ((u - 1) - r) / u with u = 1 + r (the second term restores what rounding 1 + r lost), and expm1 of the
total by its Taylor series where |s| < 0.5. One program per row loops over BLOCK_N-wide chunks with a per-lane fp32
running sum; strides honoured, int64 row offsets, the result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def compound_return_kernel(x_ptr, out_ptr, N, s_xm, s_xn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * s_xm
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        r = tl.load(x_row + cols * s_xn, mask=cols < N, other=0.0).to(tl.float32) * 1e-4
        u = 1.0 + r
        lp = tl.log(u)
        lp = tl.where(u == r, tl.log(u), lp)  # |r| so large (or inf) that 1 + r rounds to r
        acc += lp
    s = tl.sum(acc, axis=0)
    series = s * (1.0 + s * (0.5 + s * (1.0 / 6.0 + s * (1.0 / 24.0 + s * (1.0 / 120.0 + s * (
        1.0 / 720.0 + s * (1.0 / 5040.0 + s * (1.0 / 40320.0 + s / 362880.0))))))))
    total = tl.where(tl.abs(s) < 0.5, series, tl.exp(s) - 1.0)
    tl.store(out_ptr + row, (total * 1e4).to(out_ptr.dtype.element_ty))


def compound_return(x: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    compound_return_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.expm1(torch.log1p(x * 1e-4).sum(-1)) * 1e4


spec = kcheck.Spec(
    name="hx32_compound_return_bps",
    kernel=compound_return,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="returns_bps")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=1000, real=(2880,))},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
